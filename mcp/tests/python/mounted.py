"""The Python MCP SDK as a client of an rmcp server of the host's own,
with toolgate's tools mounted in its tool router and the host's own
authentication layer (an `x-api-key` header).

Usage: python mounted.py URL
Exits 0 when every check passed; prints one line per check.
"""

import json
import sys

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

URL = sys.argv[1]
MODES = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}
failures = []


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"))
    if not condition:
        failures.append(name)


def body(result):
    return json.loads(result.content[0].text)


def connect(mode, headers):
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300))
    return http, Client(streamable_http_client(URL, http_client=http), mode=mode, cache=None)


async def run(mode):
    label = MODES[mode]
    http, client = connect(mode, {"x-api-key": "key-of-analyst-1"})
    async with http, client as mcp:
        listed = sorted(tool.name for tool in (await mcp.list_tools()).tools)
        check(f"{label}: lists the host's tool and toolgate's", listed == ["host_version", "survey_rooms"], listed)

        seen = []

        async def progress(done, total, message):
            seen.append((done, total, message))

        done = await mcp.call_tool("survey_rooms", {"rooms": 3}, progress_callback=progress)
        check(
            f"{label}: the host's layer's caller reaches the body",
            done.is_error is False
            and done.structured_content == {"actor": "analyst_1", "tenant": "tenant_c", "rooms": 3},
            done,
        )
        check(
            f"{label}: progress reaches the client",
            len(seen) >= 1 and seen[-1][1] == 3 and seen[-1][2] == "surveying",
            seen,
        )
        named = await mcp.call_tool("survey_rooms", {"rooms": 1, "actor": "root", "tenant": "tenant_a"})
        check(
            f"{label}: the model cannot name the caller",
            named.is_error is True and body(named)["code"] == "UNKNOWN_FIELD",
            named,
        )
        own = await mcp.call_tool("host_version", {})
        check(
            f"{label}: the host's own tool answers",
            own.is_error is not True and own.content[0].text == "host 1.0",
            own,
        )

    http, client = connect(mode, {})
    async with http, client as mcp:
        listed = [tool.name for tool in (await mcp.list_tools()).tools]
        refused = await mcp.call_tool("survey_rooms", {"rooms": 1})
        check(
            f"{label}: a caller the host's layer did not identify is refused",
            refused.is_error is True
            and body(refused)["code"] == "NOT_PERMITTED"
            and listed == ["host_version"],
            (refused, listed),
        )


async def main():
    for mode in MODES:
        try:
            await run(mode)
        except Exception as error:  # a failure to connect is a failed check
            check(f"{MODES[mode]}: runs", False, repr(error))
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)
    print("every check passed")


anyio.run(main)
