"""The Python MCP SDK as a client of the toolgate demo.

Over stdio and over streamable HTTP, on both protocol generations
(2025-11-25 with `initialize`, 2026-07-28 without): connect, list, valid
and invalid calls, an unknown tool, another tenant's order, a frame whose
arguments repeat a key (written by hand: the SDK's dicts cannot hold one),
and over HTTP, missing and bad bearer tokens, two callers of one tenant
making the same call (each gets its own outcome), and a 2025-11-25 session
presented with another caller's token (refused as unknown).

Usage: python clients.py PATH-TO-toolgate-demo
Exits 0 when every check passed; prints one line per check.
"""

import json
import subprocess
import sys

import anyio
import httpx2
import mcp.types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

DEMO = sys.argv[1]
GENERATIONS = ["legacy", "2026-07-28"]
VERSION = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}
TOOLS = ["book_hotel", "issue_refund", "refund_invoice", "schedule_export"]
DUPLICATE = '{"order":"ord_1001","amount_cents":100,"amount_cents":50000}'
META = (
    '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    '"io.modelcontextprotocol/clientCapabilities":{}}'
)
failures = []


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"))
    if not condition:
        failures.append(name)


def body(result):
    """The JSON the text block carries."""
    return json.loads(result.content[0].text)


async def calls(client, label):
    """What every client checks, whatever the transport."""
    listed = sorted(tool.name for tool in (await client.list_tools()).tools)
    check(f"{label}: lists the four tools", listed == TOOLS, listed)

    done = await client.call_tool("book_hotel", {"hotel_id": "h_seaview1", "nights": 2})
    check(f"{label}: a valid call runs", done.is_error is False, done)
    check(
        f"{label}: its structured content",
        (done.structured_content or {}).get("total_cents") == 24000,
        done.structured_content,
    )

    for what, tool, arguments, code in [
        ("an unknown field is refused", "book_hotel",
         {"hotel_id": "h_seaview1", "nights": 2, "price": 1}, "UNKNOWN_FIELD"),
        ("an out-of-range value is refused", "book_hotel",
         {"hotel_id": "h_seaview1", "nights": 300}, "OUT_OF_RANGE"),
        ("an unknown tool is answered like a forbidden one", "drop_tables", {}, "NOT_PERMITTED"),
        ("another tenant's order is refused flat", "issue_refund",
         {"order": "ord_2001", "amount_cents": 100}, "NOT_PERMITTED"),
    ]:
        refused = await client.call_tool(tool, arguments)
        check(
            f"{label}: {what}",
            refused.is_error is True and body(refused)["code"] == code,
            refused,
        )
    held = await client.call_tool("issue_refund", {"order": "ord_1001", "amount_cents": 100})
    check(
        f"{label}: a refund is held for approval",
        held.is_error is True and body(held)["status"] == "approval_required",
        held,
    )


async def approvals(connect, label):
    """A client that can ask its person: the refund is asked about, with
    its preview; declined, it is denied; accepted, it runs once."""
    asked = []

    def person(action):
        async def answer(context, params):
            asked.append(params.message)
            return types.ElicitResult(action=action)

        return answer

    refund = {"invoice_id": "inv_88", "amount_cents": 500, "reason": {"kind": "duplicate"}}
    async with connect(person("decline")) as client:
        denied = await client.call_tool("refund_invoice", refund)
    check(
        f"{label}: a declined approval denies the call",
        denied.is_error is True and body(denied)["code"] == "APPROVAL_DENIED",
        denied,
    )
    async with connect(person("accept")) as client:
        done = await client.call_tool("refund_invoice", refund)
        again = await client.call_tool("refund_invoice", refund)
    check(
        f"{label}: an accepted approval runs the call",
        done.is_error is False and (done.structured_content or {}).get("invoice_id") == "inv_88",
        done,
    )
    check(
        f"{label}: the person saw the call's preview",
        len(asked) == 2 and "refund_invoice" in asked[1] and '"amount_cents":500' in asked[1],
        asked,
    )
    check(
        f"{label}: its repeat replays without asking again",
        again.structured_content == done.structured_content and len(asked) == 2,
        (again, asked),
    )


async def stdio(mode):
    label = f"stdio {VERSION[mode]}"
    server = StdioServerParameters(command=DEMO, args=["--stdio"])
    async with Client(server, mode=mode, cache=None) as client:
        check(
            f"{label}: speaks {VERSION[mode]}",
            client.session.protocol_version == VERSION[mode],
            client.session.protocol_version,
        )
        await calls(client, label)

    def connect(answer):
        return Client(server, mode=mode, cache=None, elicitation_callback=answer)

    await approvals(connect, label)


def stdio_duplicate(mode):
    """The raw frame, written to the server's stdin by hand."""
    label = f"stdio {VERSION[mode]}"
    frames = []
    if mode == "legacy":
        frames.append(
            '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
            '"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}'
        )
        frames.append('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        meta = ""
    else:
        meta = "," + META
    frames.append(
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"issue_refund",'
        f'"arguments":{DUPLICATE}{meta}}}}}'
    )
    done = subprocess.run(
        [DEMO, "--stdio"],
        input="\n".join(frames) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    answer = next((a for a in answers if a.get("id") == 2), None)
    result = (answer or {}).get("result", {})
    code = json.loads(result["content"][0]["text"])["code"] if result else None
    check(f"{label}: a repeated key is DUPLICATE_KEY", code == "DUPLICATE_KEY", answers)


class Demo:
    """`toolgate-demo --http` on a free port: its URL and the tokens it
    printed, for analyst_1 (`token`) and analyst_2 (`other`), both of
    tenant_a."""

    def __enter__(self):
        self.process = subprocess.Popen(
            [DEMO, "--http", "127.0.0.1:0", "--actor", "analyst_1", "--actor", "analyst_2"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.url = None
        while self.url is None:
            line = self.process.stderr.readline()
            if not line:
                raise RuntimeError("the demo exited before serving")
            if " at http://" in line:
                self.url = line.split(" at ", 1)[1].strip()
        self.token = self.process.stdout.readline().strip()
        self.other = self.process.stdout.readline().strip()
        return self

    def __exit__(self, *_):
        # Asked to stop, the demo removes its scratch store; killed, it
        # could not.
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


async def http(demo, mode):
    label = f"http {VERSION[mode]}"
    client = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {demo.token}"},
        timeout=httpx2.Timeout(30, read=300),
    )
    async with client, Client(
        streamable_http_client(demo.url, http_client=client), mode=mode, cache=None
    ) as mcp:
        check(
            f"{label}: speaks {VERSION[mode]}",
            mcp.session.protocol_version == VERSION[mode],
            mcp.session.protocol_version,
        )
        await calls(mcp, label)

    def connect(answer):
        return authorized(demo, mode, answer)

    await approvals(connect, label)


class authorized:
    """A client of the HTTP demo with its token, answering questions with
    `answer`."""

    def __init__(self, demo, mode, answer):
        self.http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {demo.token}"})
        self.client = Client(
            streamable_http_client(demo.url, http_client=self.http),
            mode=mode,
            cache=None,
            elicitation_callback=answer,
        )

    async def __aenter__(self):
        await self.http.__aenter__()
        return await self.client.__aenter__()

    async def __aexit__(self, *exc):
        await self.client.__aexit__(*exc)
        await self.http.__aexit__(*exc)


async def http_auto(demo):
    """Offered both, the SDK picks the newer generation."""
    client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {demo.token}"})
    async with client, Client(streamable_http_client(demo.url, http_client=client), cache=None) as mcp:
        check(
            "http auto: picks 2026-07-28",
            mcp.session.protocol_version == "2026-07-28",
            mcp.session.protocol_version,
        )


async def http_unauthorized(demo, mode, token):
    """No token, or a bad one: 401 with a challenge naming the metadata."""
    label = f"http {VERSION[mode]}: {'no token' if token is None else 'a bad token'}"
    seen = []

    async def hook(response):
        seen.append(response)

    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    client = httpx2.AsyncClient(headers=headers, event_hooks={"response": [hook]})
    refused = False
    try:
        async with client, Client(
            streamable_http_client(demo.url, http_client=client), mode=mode, cache=None
        ) as mcp:
            await mcp.list_tools()
    except BaseException as error:  # an MCPError, inside the SDK's exception groups
        refused = contains(error, MCPError)
    check(f"{label}: the client is refused", refused)
    statuses = [r.status_code for r in seen]
    challenge = seen[0].headers.get("www-authenticate", "") if seen else ""
    check(f"{label}: 401", statuses and all(s == 401 for s in statuses), statuses)
    check(
        f"{label}: the challenge names the metadata",
        challenge.startswith("Bearer ")
        and "resource_metadata=" in challenge
        and "/.well-known/oauth-protected-resource/mcp" in challenge,
        challenge,
    )


def contains(error, kind):
    if isinstance(error, kind):
        return True
    return any(contains(e, kind) for e in getattr(error, "exceptions", ()))


async def http_duplicate(demo, mode):
    """The raw frame, POSTed by hand."""
    label = f"http {VERSION[mode]}"
    headers = {
        "Authorization": f"Bearer {demo.token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    async with httpx2.AsyncClient(timeout=30) as client:
        if mode == "legacy":
            init = await client.post(
                demo.url,
                headers=headers,
                content='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
                '"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}',
            )
            headers["Mcp-Session-Id"] = init.headers["mcp-session-id"]
            headers["MCP-Protocol-Version"] = "2025-11-25"
            await client.post(
                demo.url,
                headers=headers,
                content='{"jsonrpc":"2.0","method":"notifications/initialized"}',
            )
            meta = ""
        else:
            headers["MCP-Protocol-Version"] = "2026-07-28"
            headers["Mcp-Method"] = "tools/call"
            headers["Mcp-Name"] = "issue_refund"
            meta = "," + META
        frame = (
            '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"issue_refund",'
            f'"arguments":{DUPLICATE}{meta}}}}}'
        )
        answer = await client.post(demo.url, headers=headers, content=frame)
    messages = [
        json.loads(line[len("data:"):])
        for line in answer.text.splitlines()
        if line.startswith("data:") and line[len("data:"):].strip()
    ] or [json.loads(answer.text)]
    result = next((m.get("result") for m in messages if m.get("id") == 2), None)
    code = json.loads(result["content"][0]["text"])["code"] if result else None
    check(f"{label}: a repeated key is DUPLICATE_KEY", code == "DUPLICATE_KEY", answer.text)


async def http_two_callers(demo, mode):
    """Two callers of one tenant, each with its own token, make the same
    call: each reads its own booking, never the other's."""
    label = f"http {VERSION[mode]}"
    stay = {"hotel_id": "h_seaview1", "nights": 4}
    guests = []
    for token in [demo.token, demo.other, demo.token]:
        client = httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"},
            timeout=httpx2.Timeout(30, read=300),
        )
        async with client, Client(
            streamable_http_client(demo.url, http_client=client), mode=mode, cache=None
        ) as mcp:
            done = await mcp.call_tool("book_hotel", stay)
            guests.append((done.structured_content or {}).get("guest"))
    check(
        f"{label}: another caller's same call gets its own outcome",
        guests == ["analyst_1", "analyst_2", "analyst_1"],
        guests,
    )


async def http_stolen_session(demo):
    """A 2025-11-25 session opened by analyst_1, presented with analyst_2's
    token: 404, as for a session that does not exist; its owner goes on."""
    label = "http 2025-11-25"

    def headers(token):
        return {
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }

    call = (
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"book_hotel",'
        '"arguments":{"hotel_id":"h_seaview1","nights":5}}}'
    )
    async with httpx2.AsyncClient(timeout=30) as client:
        init = await client.post(
            demo.url,
            headers=headers(demo.token),
            content='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
            '"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}',
        )
        session = {"Mcp-Session-Id": init.headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
        await client.post(
            demo.url,
            headers=headers(demo.token) | session,
            content='{"jsonrpc":"2.0","method":"notifications/initialized"}',
        )
        unknown = await client.post(
            demo.url,
            headers=headers(demo.other) | session | {"Mcp-Session-Id": "no-such-session"},
            content=call,
        )
        stolen = await client.post(demo.url, headers=headers(demo.other) | session, content=call)
        owned = await client.post(demo.url, headers=headers(demo.token) | session, content=call)
    check(
        f"{label}: a session presented with another caller's token is refused as unknown",
        stolen.status_code == 404
        and (stolen.status_code, stolen.text) == (unknown.status_code, unknown.text),
        (stolen.status_code, stolen.text, unknown.status_code, unknown.text),
    )
    check(
        f"{label}: the session still serves its owner",
        owned.status_code == 200 and '"guest":"analyst_1"' in owned.text,
        owned.text,
    )


async def main():
    for mode in GENERATIONS:
        await stdio(mode)
        stdio_duplicate(mode)
    with Demo() as demo:
        for mode in GENERATIONS:
            await http(demo, mode)
            await http_duplicate(demo, mode)
            await http_unauthorized(demo, mode, None)
            await http_unauthorized(demo, mode, demo.token[:-4] + "AAAA")
            await http_two_callers(demo, mode)
        await http_stolen_session(demo)
        await http_auto(demo)
    check("http: asked to stop, the demo exits cleanly", demo.process.returncode == 0,
          demo.process.returncode)
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)
    print("every check passed")


anyio.run(main)
