#!/usr/bin/env bash
# What a proc-macro costs the user on every build: 100 tools written with
# toolgate's #[tool], and the same 100 tools written with rmcp's #[tool]
# macros (the official MCP Rust SDK), built side by side. Each tool has the
# shape of the README's `book_hotel`: an async body, the context and the
# application state injected, a `write` effect with a scope, and two
# documented arguments, one with a pattern and one with a range. Each crate is a
# program that does what every user's does: it registers its tools (in a
# toolbox; in rmcp's tool router) and lists their definitions, so the
# generic code each tool brings is instantiated and compiled, as it is in
# a real server.
#
#   bash tests/benches/compile_time.sh            # 100 tools, results on stdout
#   TOOLS=20 WORK=/tmp/ct bash tests/benches/compile_time.sh
#   PASSES=1 bash tests/benches/compile_time.sh   # and where an edit's time goes
#
# For each crate it reports: a cold build (dependencies included), a build
# of the crate alone (dependencies already built), an incremental rebuild
# after editing one tool's body, where a nightly toolchain is installed,
# the size of the macro-expanded code per tool, and the lines of LLVM IR
# the crate hands the back end (a count, not a time: the same on every
# run). The two crates' builds of the crate alone and of the edit take
# turns, ROUNDS rounds each (nine by default), and each figure is the
# median, with the fastest and slowest build beside it, so that the ratio
# comes from one run. Run it twice with TOOLS=10 and TOOLS=20 and
# subtract for the IR that each further tool adds.
#
# With PASSES=1 it then profiles one edit of each crate: the compiler's
# own phases (`-Ztime-passes`, through RUSTC_BOOTSTRAP, which rebuilds the
# dependencies once) and the object files the edit compiled again, that
# is, the codegen units holding the edited tool.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TOOLS=${TOOLS:-100}
WORK=${WORK:-$(mktemp -d)}
TOOLCHAIN=${TOOLCHAIN:-1.95.0}
ROUNDS=${ROUNDS:-9}
mkdir -p "$WORK"

toolgate_crate() {
  local dir="$WORK/with-toolgate"
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "with-toolgate"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
toolgate = { path = "$ROOT/runtime" }
garde = { version = "0.23", features = ["derive"] }

[workspace]
TOML
  {
    echo "use toolgate::{tool, DomainCode, ToolContext, ToolError, Toolbox};"
    echo
    echo "pub struct Hotels;"
    echo
    echo "pub const UNKNOWN_HOTEL: DomainCode = DomainCode::new(\"UNKNOWN_HOTEL\");"
    for i in $(seq 0 $((TOOLS - 1))); do
      cat <<RS

/// Tool number $i: books a hotel room for the signed-in traveller. The
/// server looks up the nightly rate; the price is never an argument.
#[tool(scope = "bookings:write", effect = write)]
pub async fn tool_$i(
    ctx: &ToolContext,
    hotels: &Hotels,
    /// The hotel's id as hotel search returned it.
    #[garde(pattern(r"^h_[a-z0-9]{8}\$"))]
    hotel_id: String,
    /// How many nights to stay.
    #[garde(range(min = 1, max = 30))]
    nights: u8,
) -> Result<String, ToolError> {
    let _ = hotels;
    if hotel_id == "h_00000000" {
        return Err(ToolError::reject(UNKNOWN_HOTEL, "no hotel has this id; use an id from hotel search"));
    }
    Ok(format!("{} booked {hotel_id} for {nights} nights from tool $i", ctx.actor()))
}
RS
    done
    echo
    echo "fn main() {"
    echo "    let mut toolbox = Toolbox::new(Hotels);"
    for i in $(seq 0 $((TOOLS - 1))); do
      echo "    toolbox.register(Tool$i).unwrap();"
    done
    echo "    for def in toolbox.definitions() {"
    echo "        println!(\"{}\", def.name());"
    echo "    }"
    echo "}"
  } > "$dir/src/main.rs"
}

rmcp_crate() {
  local dir="$WORK/with-rmcp"
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "with-rmcp"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
rmcp = { version = "3", features = ["server", "macros"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"

[workspace]
TOML
  {
    echo "use rmcp::handler::server::wrapper::Parameters;"
    echo "use rmcp::model::{CallToolResult, ContentBlock};"
    echo "use rmcp::{tool, tool_router, ErrorData};"
    for i in $(seq 0 $((TOOLS - 1))); do
      cat <<RS

/// The arguments of tool $i.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Tool${i}Args {
    /// The hotel's id as hotel search returned it.
    #[schemars(regex(pattern = r"^h_[a-z0-9]{8}\$"))]
    pub hotel_id: String,
    /// How many nights to stay.
    #[schemars(range(min = 1, max = 30))]
    pub nights: u8,
}
RS
    done
    echo
    echo "pub struct Hotels;"
    echo
    echo "#[derive(Clone)]"
    echo "pub struct Server {"
    echo "    hotels: std::sync::Arc<Hotels>,"
    echo "}"
    echo
    echo "#[tool_router(server_handler)]"
    echo "impl Server {"
    for i in $(seq 0 $((TOOLS - 1))); do
      cat <<RS
    /// Tool number $i: books a hotel room for the signed-in traveller. The
    /// server looks up the nightly rate; the price is never an argument.
    #[tool(description = "Tool number $i: books a hotel room for the signed-in traveller. The server looks up the nightly rate; the price is never an argument.")]
    async fn tool_$i(&self, Parameters(args): Parameters<Tool${i}Args>) -> Result<CallToolResult, ErrorData> {
        let _ = &self.hotels;
        if args.hotel_id == "h_00000000" {
            return Err(ErrorData::invalid_params("no hotel has this id; use an id from hotel search", None));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(format!("booked {} for {} nights from tool $i", args.hotel_id, args.nights))]))
    }

RS
    done
    echo "}"
    echo
    echo "fn main() {"
    echo "    let _ = Server { hotels: std::sync::Arc::new(Hotels) };"
    echo "    for tool in Server::tool_router().list_all() {"
    echo "        println!(\"{}\", tool.name);"
    echo "    }"
    echo "}"
  } > "$dir/src/main.rs"
}

seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

median() {
  printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

# The fastest and the slowest of a list of times.
spread() {
  printf '%s\n' "$@" | sort -n | awk 'NR == 1 {lo = $1} {hi = $1} END {printf "%.2f-%.2f s", lo, hi}'
}

# The crate alone, its dependencies built: `cargo clean -p` then
# `cargo build`, as the crate is built after any change to it.
alone() {
  (cd "$WORK/$1" && cargo +"$TOOLCHAIN" clean --offline -p "$1" > /dev/null 2>&1 &&
    seconds cargo +"$TOOLCHAIN" build --offline)
}

# One tool's body edited, as a developer would (a new text each time),
# then rebuilt incrementally.
edit() {
  (cd "$WORK/$1" &&
    sed -i "s/from tool 7\( (edit [0-9]*)\)\?\"/from tool 7 (edit $2)\"/" src/main.rs &&
    seconds cargo +"$TOOLCHAIN" build --offline)
}

# What does not move with the machine's load: the size of the
# macro-expanded code per tool (where a nightly toolchain is installed)
# and the lines of LLVM IR the crate hands the back end (one codegen
# unit, lines inside function bodies: the same on every run).
sizes() {
  (
    cd "$WORK/$1"
    local expanded="n/a" bytes ir
    if cargo +nightly --version > /dev/null 2>&1; then
      bytes=$(cargo +nightly rustc --offline --profile=check -q -- -Zunpretty=expanded 2> /dev/null | wc -c)
      expanded=$((bytes / TOOLS))
    fi
    rm -f target/debug/deps/*.ll
    cargo +"$TOOLCHAIN" rustc --offline -q -- --emit=llvm-ir -C codegen-units=1 > /dev/null 2>&1
    ir=$(awk '/^define /{f=1;next} /^}/{f=0} f{n++} END{print n}' target/debug/deps/*.ll)
    echo "expanded $expanded bytes/tool   LLVM IR $ir lines ($((ir / TOOLS))/tool)"
  )
}

toolgate_crate
rmcp_crate
echo "$TOOLS tools, $(nproc) cores, $(cargo +"$TOOLCHAIN" --version)"
crates=(with-toolgate with-rmcp)
declare -A cold
for crate in "${crates[@]}"; do
  (cd "$WORK/$crate" && rm -rf target && cargo +"$TOOLCHAIN" fetch -q)
  cold[$crate]=$(cd "$WORK/$crate" && seconds cargo +"$TOOLCHAIN" build --offline)
done
# The two crates' builds take turns, so that the machine's load, which
# moves one build by a second or more here, falls on both alike: ROUNDS
# rounds of the crate alone, then an edit to warm up and ROUNDS rounds of
# edits. Each figure is a median. Five rounds gave the same code's crate
# alone 0.83 and 0.90 of rmcp's time in two runs an hour apart, hence
# nine by default.
declare -A alones edits
for round in $(seq "$ROUNDS"); do
  for crate in "${crates[@]}"; do
    alones[$crate]+=" $(alone "$crate")"
  done
done
for crate in "${crates[@]}"; do
  edit "$crate" 0 > /dev/null
done
for round in $(seq "$ROUNDS"); do
  for crate in "${crates[@]}"; do
    edits[$crate]+=" $(edit "$crate" "$round")"
  done
done
for crate in "${crates[@]}"; do
  sed -i "s/from tool 7 (edit [0-9]*)\"/from tool 7\"/" "$WORK/$crate/src/main.rs"
  # shellcheck disable=SC2086 # the list of times is split on purpose
  printf '%-14s cold %6.1f s   crate alone %6.2f s   one tool edited %6.2f s   %s\n' \
    "$crate" "${cold[$crate]}" "$(median ${alones[$crate]})" "$(median ${edits[$crate]})" "$(sizes "$crate")"
done
# shellcheck disable=SC2086 # the lists of times are split on purpose
{
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
  for crate in "${crates[@]}"; do
    printf '%-14s %s rounds: crate alone %s, one tool edited %s\n' \
      "$crate" "$ROUNDS" "$(spread ${alones[$crate]})" "$(spread ${edits[$crate]})"
  done
  printf 'toolgate / rmcp: cold %s   crate alone %s   one tool edited %s (medians)\n' \
    "$(ratio "${cold[with-toolgate]}" "${cold[with-rmcp]}")" \
    "$(ratio "$(median ${alones[with-toolgate]})" "$(median ${alones[with-rmcp]})")" \
    "$(ratio "$(median ${edits[with-toolgate]})" "$(median ${edits[with-rmcp]})")"
}

# Where one edit's time goes, crate by crate: the compiler's phases and
# the codegen units compiled again.
passes() {
  (
    cd "$WORK/$1"
    local run="RUSTC_BOOTSTRAP=1 cargo +$TOOLCHAIN rustc --offline -q -- -Ztime-passes"
    # The first build rebuilds the dependencies for the changed
    # environment and primes the incremental cache under these flags.
    sed -i "s/from tool 7\"/from tool 7 (passes 1)\"/" src/main.rs
    eval "$run" > /dev/null 2>&1
    local marker="$WORK/$1.marker"
    touch "$marker"
    sleep 1
    sed -i "s/(passes 1)/(passes 2)/" src/main.rs
    eval "$run" 2>&1 | awk -v crate="$1" '
      /^time:/ {
        t = $2; sub(";", "", t); name = $NF
        if (name ~ /^(total|macro_expand_crate|resolve_crate|coherence_checking|type_check_crate|MIR_borrow_checking|codegen_crate|LLVM_passes|link|serialize_dep_graph|incr_comp_persist_result_cache)$/)
          printf "%-14s %-32s %6.3f s\n", crate, name, t
      }'
    sed -i "s/ (passes 2)//" src/main.rs
    local objects
    objects=$(find target/debug/incremental -newer "$marker" -name '*.o' -printf '%s\n' |
      awk '{n++; b += $1} END {printf "%d objects, %.1f MB", n, b / 1e6}')
    printf '%-14s compiled again after the edit: %s\n' "$1" "$objects"
  )
}

if [ "${PASSES:-0}" = 1 ]; then
  for crate in "${crates[@]}"; do
    passes "$crate"
  done
fi
