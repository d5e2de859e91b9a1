#!/usr/bin/env bash
# The fleet under compose, end to end: build every image, start the stack (Phoenix swapped for an
# OTLP capture), scale rag-agent, and check what an operator relies on. See --help.
set -uo pipefail

usage() {
  cat <<'EOF'
Usage: infra/scripts/compose-smoke.sh [--no-build] [--keep] [--only CHECKS] [--help]

Builds every fleet image, starts the stack with docker-compose.yml + compose.otlp-capture.yml
(Phoenix replaced by a tiny OTLP capture), scales rag-agent to SMOKE_REPLICAS (3), and checks:

  sizes     image sizes, and no development dependency (typescript, jest, eslint, ...) in an image
  upload    a document upload through the gateway (POST /v1/documents)
  answer    an orchestrated question answered from that document, with the document cited
  console   the web console: /console under its Content-Security-Policy, and its script
  spread    A2A calls spread over every rag-agent replica (per-replica /metrics counters)
  trace     one orchestrated request is one trace across the containers (gateway, orchestrator,
            planner, rag-agent), read back from the OTLP capture
  code      an orchestrated code-agent run, approved through the sessions API, runs once
  rolling   a rolling restart of the rag-agent replicas while questions run: no question lost
  redis     Redis killed (SIGKILL) and started again keeps the sessions (AOF on its volume)

It runs offline (no LLM): the RAG agent answers extractively, the code agent runs the program the
question contains. Exits non-zero when a check fails, naming it; the stack is taken down at the end
(with its volumes) unless --keep.

Options:
  --no-build     use the images already built (a2a-fleet/<service>:<tag>)
  --keep         leave the stack running afterwards (take it down with the printed command)
  --only LIST    run only these checks (comma-separated names from above; the stack always starts)
  -h, --help     this text

Environment:
  COMPOSE              the compose command; default: the first that works of `docker compose`,
                       `podman-compose`, `docker-compose` (e.g. COMPOSE=podman-compose)
  ENGINE               the container CLI for builds, exec and restarts; default: podman with
                       podman-compose, else docker
  COMPOSE_PROJECT_NAME project name (default a2a-fleet-smoke; its volumes are removed at the end)
  NODE_IMAGE           base image for the fleet's images (default node:20-bookworm-slim)
  REDIS_IMAGE, POSTGRES_IMAGE
                       images for Redis and PostgreSQL + pgvector (defaults: docker-compose.yml)
  SMOKE_BUILD_OPTS     extra options for `$ENGINE build`, e.g. --network=host
  FLEET_IMAGE_REPOSITORY, FLEET_IMAGE_TAG
                       the fleet's image names: <repository>/<service>:<tag> (a2a-fleet, dev)
  FLEET_GATEWAY_PORT, FLEET_PHOENIX_PORT, FLEET_PHOENIX_GRPC_PORT
                       host ports for the gateway, the OTLP capture's HTTP port and the unused
                       gRPC port (default: free ports chosen at random)
  SMOKE_REPLICAS       rag-agent replicas (default 3)
  SMOKE_QUESTIONS      questions asked for the spread check (default 12)
  SMOKE_TIMEOUT        seconds to wait for the stack to be ready (default 240)

Example (podman, local base images, builds need the host network):
  COMPOSE=podman-compose NODE_IMAGE=localhost/fleet-base/node:20 \
  REDIS_IMAGE=localhost/fleet-base/redis:7 POSTGRES_IMAGE=localhost/fleet-base/pgvector:17 \
  SMOKE_BUILD_OPTS=--network=host bash infra/scripts/compose-smoke.sh
EOF
}

BUILD=1
KEEP=0
ONLY=''
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) BUILD=0 ;;
    --keep) KEEP=1 ;;
    --only) ONLY=",${2:?--only needs a list},"; shift ;;
    --only=*) ONLY=",${1#--only=},"; ;;
    -h | --help) usage; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT" || exit 2

# ---- output and bookkeeping
RESULTS=()
FAILED=0
log() { printf '\n== %s  [%s]\n' "$*" "$(date -u +%H:%M:%S)"; }
note() { printf '   %s\n' "$*"; }
pass() { RESULTS+=("PASS  $1: $2"); printf '   PASS %s: %s\n' "$1" "$2"; }
fail() { RESULTS+=("FAIL  $1: $2"); FAILED=1; printf '   FAIL %s: %s\n' "$1" "$2" >&2; }
wanted() { [ -z "$ONLY" ] || [[ "$ONLY" == *",$1,"* ]]; }
die() { echo "compose-smoke: $*" >&2; exit 2; }

for tool in curl jq; do command -v "$tool" >/dev/null || die "needs $tool"; done

# ---- which compose, which engine
if [ -z "${COMPOSE:-}" ]; then
  if docker compose version >/dev/null 2>&1; then COMPOSE='docker compose'
  elif command -v podman-compose >/dev/null; then COMPOSE=podman-compose
  elif command -v docker-compose >/dev/null; then COMPOSE=docker-compose
  else die 'no compose found: install Docker Compose v2 or podman-compose, or set COMPOSE'; fi
fi
read -r -a COMPOSE_CMD <<<"$COMPOSE"
if [ -z "${ENGINE:-}" ]; then
  if [[ "$COMPOSE" == *podman* ]]; then ENGINE=podman; else ENGINE=docker; fi
fi
command -v "$ENGINE" >/dev/null || die "container CLI '$ENGINE' not found (set ENGINE)"
IS_PODMAN_COMPOSE=0
[[ "$COMPOSE" == *podman-compose* ]] && IS_PODMAN_COMPOSE=1

export COMPOSE_PROJECT_NAME=${COMPOSE_PROJECT_NAME:-a2a-fleet-smoke}
PROJECT=$COMPOSE_PROJECT_NAME
export FLEET_IMAGE_REPOSITORY=${FLEET_IMAGE_REPOSITORY:-a2a-fleet}
export FLEET_IMAGE_TAG=${FLEET_IMAGE_TAG:-dev}
export NODE_IMAGE=${NODE_IMAGE:-node:20-bookworm-slim}
REPLICAS=${SMOKE_REPLICAS:-3}
QUESTIONS=${SMOKE_QUESTIONS:-12}
TIMEOUT=${SMOKE_TIMEOUT:-240}
KEY=sk-fleet-smoke-key-0123456789:smoke
export GATEWAY_API_KEYS=$KEY
BEARER="Authorization: Bearer ${KEY%%:*}"
# The smoke run is offline whatever the shell says.
unset OPENAI_API_KEY OPENAI_BASE_URL LLM_MODEL EMBEDDING_MODEL EMBEDDING_DIMENSIONS

free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
export FLEET_BIND_ADDRESS=127.0.0.1
export FLEET_GATEWAY_PORT=${FLEET_GATEWAY_PORT:-$(free_port)}
export FLEET_PHOENIX_PORT=${FLEET_PHOENIX_PORT:-$(free_port)}
export FLEET_PHOENIX_GRPC_PORT=${FLEET_PHOENIX_GRPC_PORT:-$(free_port)}
GATEWAY=http://127.0.0.1:$FLEET_GATEWAY_PORT
CAPTURE=http://127.0.0.1:$FLEET_PHOENIX_PORT

FILES=(-f docker-compose.yml -f compose.otlp-capture.yml)
# podman-compose 1.0.3 has no --scale: the replicas come from compose.replicas.yml.
[ "$IS_PODMAN_COMPOSE" = 1 ] && FILES+=(-f compose.replicas.yml)
compose() { "${COMPOSE_CMD[@]}" -p "$PROJECT" "${FILES[@]}" "$@"; }

WORK=$(mktemp -d)
cleanup() {
  local status=$?
  jobs -p | xargs -r kill 2>/dev/null
  if [ "$KEEP" = 1 ]; then
    note "stack left running: ${COMPOSE} -p $PROJECT ${FILES[*]} down -v"
  else
    log "down"
    compose down -v >"$WORK/down.log" 2>&1 || tail -5 "$WORK/down.log"
    # podman-compose 1.0.3 leaves the project's network behind.
    [ "$IS_PODMAN_COMPOSE" = 1 ] && "$ENGINE" network rm "${PROJECT}_default" >/dev/null 2>&1
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "compose: $COMPOSE ($("${COMPOSE_CMD[@]}" version 2>&1 | grep -i -m1 compose)); engine: $ENGINE ($("$ENGINE" --version 2>/dev/null))"
note "project $PROJECT, gateway $GATEWAY, OTLP capture $CAPTURE, node image $NODE_IMAGE"

# ---- 1. build
# Each service: its default port (docs/architecture.md §1) and the Debian packages it needs.
SERVICES=(gateway orchestrator planner rag-agent web-agent mail-agent code-agent reasoning-agent tools-agent)
declare -A PORT_OF=([gateway]=8080 [orchestrator]=8081 [planner]=8082 [rag-agent]=8083
  [web-agent]=8084 [mail-agent]=8085 [code-agent]=8086 [reasoning-agent]=8087
  [tools-agent]=8088)
# The code agent's sandbox packages come from the Dockerfile (CODE_AGENT_PACKAGES).
declare -A PACKAGES_OF=()
image_of() { echo "$FLEET_IMAGE_REPOSITORY/$1:$FLEET_IMAGE_TAG"; }

if [ "$BUILD" = 1 ]; then
  read -r -a BUILD_OPTS <<<"${SMOKE_BUILD_OPTS:-}"
  # podman's default OCI format drops the Dockerfile's HEALTHCHECK.
  [ "$ENGINE" = podman ] && BUILD_OPTS+=(--format docker)
  for service in "${SERVICES[@]}"; do
    log "build $(image_of "$service")"
    started=$SECONDS
    args=(build "${BUILD_OPTS[@]}" -f infra/docker/Dockerfile -t "$(image_of "$service")"
      --build-arg "NODE_IMAGE=$NODE_IMAGE" --build-arg "SERVICE=$service"
      --build-arg "PORT=${PORT_OF[$service]}")
    [ -n "${PACKAGES_OF[$service]:-}" ] && args+=(--build-arg "SYSTEM_PACKAGES=${PACKAGES_OF[$service]}")
    if "$ENGINE" "${args[@]}" . >"$WORK/build-$service.log" 2>&1; then
      note "built in $((SECONDS - started)) s"
    else
      tail -30 "$WORK/build-$service.log" >&2
      die "building $service failed (full log above, last 30 lines)"
    fi
  done
fi

# ---- 2. sizes, production dependencies only
if wanted sizes; then
  log "image sizes"
  bad=''
  for service in "${SERVICES[@]}"; do
    image=$(image_of "$service")
    bytes=$("$ENGINE" image inspect --format '{{.Size}}' "$image" 2>/dev/null) || die "no image $image (build first)"
    printf '   %-40s %6s MB\n' "$image" "$((bytes / 1000000))"
    # pnpm deploy --prod keeps its store in node_modules/.pnpm: no development tool may be there.
    dev=$("$ENGINE" run --rm --entrypoint sh "$image" -c \
      'ls node_modules/.pnpm 2>/dev/null | grep -E "^(typescript|jest|ts-jest|eslint|prettier|@types\+jest|fast-check)@" | head -3' 2>/dev/null)
    [ -n "$dev" ] && bad+="$service: $(echo "$dev" | tr '\n' ' ') "
  done
  base=$("$ENGINE" image inspect --format '{{.Size}}' "$NODE_IMAGE" 2>/dev/null || echo 0)
  note "(the base image $NODE_IMAGE is $((base / 1000000)) MB of each)"
  if [ -z "$bad" ]; then pass sizes 'production dependencies only in every image'
  else fail sizes "development dependencies in images: $bad"; fi
fi

# ---- 3. up
log "up (rag-agent: 1 replica)"
compose down -v >/dev/null 2>&1
if [ "$IS_PODMAN_COMPOSE" = 1 ]; then
  RAG_AGENT_REPLICAS=1 compose up -d --no-build >"$WORK/up.log" 2>&1
else
  compose up -d --no-build >"$WORK/up.log" 2>&1
fi || { tail -30 "$WORK/up.log" >&2; die 'compose up failed'; }

containers_of() { # service → running container ids, by container name
  "$ENGINE" ps --filter "label=com.docker.compose.project=$PROJECT" \
    --filter "label=com.docker.compose.service=$1" --filter status=running \
    --format '{{.Names}} {{.ID}}' | sort | awk '{print $2}'
}
name_of() { "$ENGINE" inspect --format '{{.Name}}' "$1" | sed 's#^/##'; }
# GET a path of a container's own service, from inside it (agents publish no port).
container_get() { # container port path
  "$ENGINE" exec "$1" node -e "fetch('http://127.0.0.1:$2$3',{signal:AbortSignal.timeout(5000)}).then(async r=>{process.stdout.write(await r.text());process.exit(r.ok?0:1)},()=>process.exit(1))" 2>/dev/null
}
wait_ready() { # service port count
  local deadline=$((SECONDS + TIMEOUT)) ready ids
  while :; do
    ready=0
    mapfile -t ids < <(containers_of "$1")
    for id in "${ids[@]}"; do container_get "$id" "$2" /readyz >/dev/null && ready=$((ready + 1)); done
    [ "$ready" -ge "$3" ] && return 0
    [ $SECONDS -ge $deadline ] && { fail ready "$1: $ready of $3 replicas ready after ${TIMEOUT} s"; return 1; }
    sleep 2
  done
}
dump_logs() { for service in "$@"; do note "--- logs of $service (last 20 lines)"; compose logs --tail 20 "$service" 2>&1 | sed 's/^/   /' | tail -20; done; }

log "waiting for every service to be ready"
ready_all() {
  local service
  for service in "${SERVICES[@]}"; do wait_ready "$service" "${PORT_OF[$service]}" 1 || return 1; done
  curl -sf "$GATEWAY/readyz" >/dev/null || { fail ready "gateway /readyz from the host ($GATEWAY)"; return 1; }
  curl -sf "$CAPTURE/healthz" >/dev/null || { fail ready "OTLP capture from the host ($CAPTURE)"; return 1; }
}
ready_all || { dump_logs gateway orchestrator rag-agent; exit 1; }
note "all services ready"

# ---- 4. scale
log "scale rag-agent to $REPLICAS"
if [ "$IS_PODMAN_COMPOSE" = 1 ]; then
  RAG_AGENT_REPLICAS=$REPLICAS compose up -d --no-build >"$WORK/scale.log" 2>&1
else
  compose up -d --no-build --no-recreate --scale "rag-agent=$REPLICAS" >"$WORK/scale.log" 2>&1
fi || { tail -20 "$WORK/scale.log" >&2; die 'scaling failed'; }
wait_ready rag-agent 8083 "$REPLICAS" || { dump_logs rag-agent; exit 1; }
mapfile -t RAG < <(containers_of rag-agent)
note "rag-agent replicas: $(for id in "${RAG[@]}"; do name_of "$id"; done | tr '\n' ' ')"
[ "${#RAG[@]}" -eq "$REPLICAS" ] || fail scale "expected $REPLICAS rag-agent containers, found ${#RAG[@]}"

# ---- helpers for the checks
ask() { # question [outfile] → prints the answer; X-Session-ID in $outfile.headers
  local out=${2:-$WORK/ask.json}
  jq -n --arg q "$1" '{model:"fleet-orchestration",messages:[{role:"user",content:$q}]}' >"$out.request"
  curl -s -m 180 -D "$out.headers" -o "$out" -w '%{http_code}' "$GATEWAY/v1/chat/completions" \
    -H "$BEARER" -H 'Content-Type: application/json' -H 'X-Routing-Mode: orchestration' \
    --data-binary "@$out.request"
}
session_of() { tr -d '\r' <"$1.headers" | awk -F': ' 'tolower($1)=="x-session-id"{print $2}'; }
# The questions of the demo corpus about the handbook, with what their answers must contain.
# "According to our documents" sends them to the RAG agent alone: offline, the heuristic planner
# would give some of them to the mail or code agent as well (or instead).
mapfile -t Q_TEXT < <(jq -r '.[] | select(.filename=="employee-handbook.md") | "According to our documents: \(.question)"' services/rag-agent/demo-corpus/questions.json)
mapfile -t Q_MUST < <(jq -r '.[] | select(.filename=="employee-handbook.md") | .mustContain' services/rag-agent/demo-corpus/questions.json)
answer_ok() { # file index → 0 when the answer holds what it must and cites the handbook
  jq -e --arg must "${Q_MUST[$2]}" '
    (.choices[0].message.content // "") as $text
    | ($text | ascii_downcase | contains($must | ascii_downcase))
      and (($text + (.fleet | tostring)) | contains("employee-handbook.md"))' "$1" >/dev/null 2>&1
}
a2a_calls() { # container → POST /a2a requests it served
  container_get "$1" 8083 /metrics \
    | awk '/^http_requests_total\{/ && /method="POST"/ && /route="\/a2a"/ {sum += $NF} END {print sum + 0}'
}

# ---- 5. upload
if wanted upload || wanted answer || wanted spread || wanted trace || wanted rolling; then
  log "upload employee-handbook.md through the gateway"
  status=$(curl -s -m 60 -o "$WORK/upload.json" -w '%{http_code}' "$GATEWAY/v1/documents" -H "$BEARER" \
    -F file=@services/rag-agent/demo-corpus/employee-handbook.md)
  if [[ "$status" =~ ^20[01]$ ]] && jq -e '.id and (.chunks > 0 or .duplicate == true)' "$WORK/upload.json" >/dev/null; then
    pass upload "HTTP $status, $(jq -c '{id, filename, chunks}' "$WORK/upload.json")"
  else
    fail upload "HTTP $status: $(head -c 300 "$WORK/upload.json")"
  fi
fi

# ---- 6. a cited answer
if wanted answer; then
  log "a cited document answer (orchestration, offline)"
  status=$(ask "${Q_TEXT[0]}" "$WORK/answer.json")
  if [ "$status" = 200 ] && answer_ok "$WORK/answer.json" 0; then
    pass answer "\"${Q_TEXT[0]}\" → contains \"${Q_MUST[0]}\", cites employee-handbook.md"
  else
    fail answer "HTTP $status: $(jq -r '.choices[0].message.content // .error.message // .' "$WORK/answer.json" 2>/dev/null | head -c 400)"
  fi
  jq -r '.choices[0].message.content' "$WORK/answer.json" 2>/dev/null | head -8 | sed 's/^/   | /'
fi

# ---- 6b. the web console the gateway image carries
if wanted console; then
  log "the web console (GET /console/ and its script)"
  status=$(curl -s -m 10 -D "$WORK/console.headers" -o "$WORK/console.html" -w '%{http_code}' "$GATEWAY/console/")
  csp=$(tr -d '\r' <"$WORK/console.headers" | awk -F': ' 'tolower($1)=="content-security-policy"{print $2}')
  script=$(grep -o 'src="/console/assets/[^"]*\.js"' "$WORK/console.html" | head -1 | sed 's/^src="//; s/"$//')
  script_status=000
  [ -n "$script" ] && script_status=$(curl -s -m 10 -o /dev/null -w '%{http_code}' "$GATEWAY$script")
  if [ "$status" = 200 ] && [[ "$csp" == *"script-src 'self'"* ]] && [ "$script_status" = 200 ]; then
    pass console "HTTP 200 with script-src 'self' in its CSP, $script HTTP 200"
  else
    fail console "page HTTP $status, CSP '$csp', script '$script' HTTP $script_status"
  fi
fi

# ---- 7. spread over the replicas
if wanted spread; then
  log "spread: $QUESTIONS questions, A2A calls per rag-agent replica"
  declare -A BEFORE=()
  for id in "${RAG[@]}"; do BEFORE[$id]=$(a2a_calls "$id"); done
  wrong=0
  for ((i = 0; i < QUESTIONS; i++)); do
    n=$((i % ${#Q_TEXT[@]}))
    status=$(ask "${Q_TEXT[$n]}" "$WORK/spread.json")
    if [ "$status" != 200 ] || ! answer_ok "$WORK/spread.json" "$n"; then
      wrong=$((wrong + 1))
      echo "HTTP $status $(jq -r '.choices[0].message.content // .error.message // "-"' "$WORK/spread.json" 2>/dev/null | head -c 160 | tr '\n' ' ')" >>"$WORK/spread.wrong"
    fi
  done
  counts=''
  idle=0
  for id in "${RAG[@]}"; do
    got=$(($(a2a_calls "$id") - BEFORE[$id]))
    counts+="$(name_of "$id")=$got "
    [ "$got" -gt 0 ] || idle=$((idle + 1))
  done
  note "A2A calls per replica: $counts"
  [ "$wrong" -eq 0 ] || fail spread-answers "$wrong of $QUESTIONS answers wrong or missing: $(sort "$WORK/spread.wrong" | uniq -c | sort -rn | head -3 | tr '\n' ' ')"
  if [ "$idle" -eq 0 ]; then pass spread "every replica served calls: $counts"
  else fail spread "$idle of ${#RAG[@]} replicas served no call: $counts"; fi
fi

# ---- 8. one request, one trace
if wanted trace; then
  log "trace: one orchestrated request is one trace across containers"
  status=$(ask "${Q_TEXT[1]}" "$WORK/trace.json")
  session=$(session_of "$WORK/trace.json")
  TRACE_SESSION=$session
  if [ "$status" != 200 ] || [ -z "$session" ]; then
    fail trace "the request failed (HTTP $status, session '${session}')"
  else
    # Spans are exported in batches (every few seconds) and when a service's spans end.
    deadline=$((SECONDS + 40))
    while :; do
      curl -s "$CAPTURE/sessions/$session" >"$WORK/trace-capture.json"
      whole=$(jq -r '[.traces[].services] | flatten | unique | join(",")' "$WORK/trace-capture.json")
      [[ ",$whole," == *,gateway,* && ",$whole," == *,orchestrator,* && ",$whole," == *,planner,* && ",$whole," == *,rag-agent,* ]] && break
      [ $SECONDS -ge $deadline ] && break
      sleep 2
    done
    traces=$(jq '.traces | length' "$WORK/trace-capture.json")
    roots=$(jq -r '[.traces[].roots[]] | join("; ")' "$WORK/trace-capture.json")
    spans=$(jq '[.traces[].spans] | add // 0' "$WORK/trace-capture.json")
    note "session $session: $traces trace(s), $spans spans, services: $whole, roots: $roots"
    missing=''
    for service in gateway orchestrator planner rag-agent; do
      [[ ",$whole," == *",$service,"* ]] || missing+="$service "
    done
    if [ "$traces" = 1 ] && [ -z "$missing" ] \
      && [ "$(jq '.traces[0].roots | length' "$WORK/trace-capture.json")" = 1 ]; then
      pass trace "one trace ($(jq -r '.traces[0].traceId' "$WORK/trace-capture.json")), $spans spans over $whole, one root ($roots)"
    else
      fail trace "expected one trace with one root over gateway, orchestrator, planner and rag-agent; got $traces trace(s), services $whole, roots: $roots"
    fi
  fi
fi

# ---- 9. an approved code-agent run
if wanted code; then
  log "code: an orchestrated code-agent run approved through the sessions API"
  question=$'Run this Python program and tell me what it prints:\n```python\nprint("smoke", 6 * 7)\n```'
  jq -n --arg q "$question" '{model:"fleet-orchestration",stream:true,messages:[{role:"user",content:$q}]}' >"$WORK/code.request"
  curl -sN -m 240 -D "$WORK/code.headers" -o "$WORK/code.stream" "$GATEWAY/v1/chat/completions" \
    -H "$BEARER" -H 'Content-Type: application/json' -H 'X-Routing-Mode: orchestration' \
    --data-binary "@$WORK/code.request" &
  stream_pid=$!
  session=''
  for _ in $(seq 1 60); do
    [ -s "$WORK/code.headers" ] && session=$(tr -d '\r' <"$WORK/code.headers" | awk -F': ' 'tolower($1)=="x-session-id"{print $2}')
    [ -n "$session" ] && break
    sleep 1
  done
  approval=''
  if [ -n "$session" ]; then
    for _ in $(seq 1 90); do
      curl -s "$GATEWAY/v1/sessions/$session/approvals" -H "$BEARER" >"$WORK/approvals.json"
      approval=$(jq -r '[(.data // .approvals // .)[]? | select(.status=="pending" and .agent=="code-agent")][0].id // empty' "$WORK/approvals.json" 2>/dev/null)
      [ -n "$approval" ] && break
      state=$(curl -s "$GATEWAY/v1/sessions/$session" -H "$BEARER" | jq -r '.status // empty')
      [[ "$state" =~ ^(completed|failed|canceled)$ ]] && break
      sleep 1
    done
  fi
  if [ -z "$approval" ]; then
    fail code "no pending code-agent approval (session '${session}'): $(head -c 400 "$WORK/approvals.json" 2>/dev/null) $(grep -o '"content":"[^"]*' "$WORK/code.stream" 2>/dev/null | tail -3 | tr '\n' ' ')"
    kill "$stream_pid" 2>/dev/null
  else
    note "session $session: approval $approval pending ($(jq -r --arg a "$approval" '[(.data // .approvals // .)[]? | select(.id==$a)][0] | "\(.action), risk \(.risk)"' "$WORK/approvals.json"))"
    decided=$(curl -s -o "$WORK/decide.json" -w '%{http_code}' -X POST "$GATEWAY/v1/sessions/$session/approvals/$approval" \
      -H "$BEARER" -H 'Content-Type: application/json' -d '{"decision":"approve"}')
    again=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$GATEWAY/v1/sessions/$session/approvals/$approval" \
      -H "$BEARER" -H 'Content-Type: application/json' -d '{"decision":"approve"}')
    wait "$stream_pid"
    CODE_SESSION=$session
    curl -s "$GATEWAY/v1/sessions/$session" -H "$BEARER" >"$WORK/code-session.json"
    state=$(jq -r '.status' "$WORK/code-session.json")
    stdout=$(jq -r '[.nodes[]? | select(.agent=="code-agent") | .data.stdout // empty] | join("")' "$WORK/code-session.json")
    sandbox=$(jq -r '[.nodes[]? | select(.agent=="code-agent") | .data.sandbox // empty] | join(",")' "$WORK/code-session.json")
    if [ "$decided" = 200 ] && [ "$again" = 409 ] && [ "$state" = completed ] && [[ "$stdout" == *"smoke 42"* ]]; then
      pass code "approved (200, a second decision 409), ran once in sandbox '$sandbox', printed '$(echo "$stdout" | tr -d '\n')', session completed"
    else
      fail code "decision HTTP $decided, repeat HTTP $again, session $state, stdout '$stdout': $(jq -c '[.nodes[]? | {agent, state, summary}]' "$WORK/code-session.json" | head -c 600)"
    fi
  fi
fi

# ---- 10. rolling restart while questions run
if wanted rolling; then
  log "rolling restart of ${#RAG[@]} rag-agent replicas while questions run"
  : >"$WORK/rolling.results"
  asker() { # worker: asks until told to stop; one line per question: index status ok|wrong
    local worker=$1 i=0 n status
    while [ ! -e "$WORK/rolling.stop" ]; do
      n=$(((i + worker) % ${#Q_TEXT[@]}))
      status=$(ask "${Q_TEXT[$n]}" "$WORK/rolling-$worker.json")
      if [ "$status" = 200 ] && answer_ok "$WORK/rolling-$worker.json" "$n"; then echo "$worker.$i $status ok" >>"$WORK/rolling.results"
      else echo "$worker.$i $status wrong $(jq -r '.choices[0].message.content // .error.message // "-"' "$WORK/rolling-$worker.json" 2>/dev/null | head -c 200 | tr '\n' ' ')" >>"$WORK/rolling.results"; fi
      i=$((i + 1))
    done
  }
  asker 0 & w0=$!
  asker 1 & w1=$!
  sleep 3
  restarted=0
  for id in "${RAG[@]}"; do
    name=$(name_of "$id")
    started=$SECONDS
    "$ENGINE" restart -t 15 "$id" >/dev/null 2>&1 || fail rolling "could not restart $name"
    until container_get "$id" 8083 /readyz >/dev/null; do
      [ $((SECONDS - started)) -gt 90 ] && { fail rolling "$name not ready 90 s after its restart"; break; }
      sleep 1
    done
    note "$name restarted, ready again after $((SECONDS - started)) s"
    restarted=$((restarted + 1))
    sleep 3
  done
  touch "$WORK/rolling.stop"
  wait "$w0" "$w1"
  total=$(wc -l <"$WORK/rolling.results")
  lost=$(grep -vc ' ok$' "$WORK/rolling.results")
  if [ "$total" -gt 0 ] && [ "$lost" -eq 0 ] && [ "$restarted" -eq "${#RAG[@]}" ]; then
    pass rolling "$restarted replicas restarted one by one; $total questions asked meanwhile, all answered and cited"
  else
    fail rolling "$lost of $total questions lost or wrong during the rolling restart; by reason: $(grep -v ' ok$' "$WORK/rolling.results" | cut -d' ' -f2- | sort | uniq -c | sort -rn | head -4 | tr '\n' ' ')"
  fi
fi

# ---- 11. Redis keeps its data
if wanted redis; then
  log "redis: killed and started again, the sessions are still there"
  remembered=${CODE_SESSION:-${TRACE_SESSION:-}}
  mapfile -t REDIS < <(containers_of redis)
  if [ -z "$remembered" ] || [ "${#REDIS[@]}" -ne 1 ]; then
    fail redis "nothing to look for (no session from the code or trace check) or no single Redis container"
  else
    before=$(curl -s "$GATEWAY/v1/sessions/$remembered" -H "$BEARER" | jq -r '.status // empty')
    sleep 2 # appendfsync everysec: what was written more than a second ago is on disk
    "$ENGINE" kill "${REDIS[0]}" >/dev/null 2>&1
    "$ENGINE" start "${REDIS[0]}" >/dev/null 2>&1
    after=''
    for _ in $(seq 1 30); do
      after=$(curl -s -m 5 "$GATEWAY/v1/sessions/$remembered" -H "$BEARER" | jq -r '.status // empty' 2>/dev/null)
      [ -n "$after" ] && break
      sleep 1
    done
    if [ -n "$before" ] && [ "$after" = "$before" ]; then
      pass redis "session $remembered is still '$after' after Redis was killed and started again"
    else
      fail redis "session $remembered was '$before' before Redis was killed, '${after:-missing}' after"
    fi
  fi
fi

# ---- summary
log "summary ($COMPOSE, $ENGINE)"
printf '   %s\n' "${RESULTS[@]}"
if [ "$FAILED" = 1 ]; then
  dump_logs orchestrator rag-agent
  echo "compose-smoke: FAILED" >&2
  exit 1
fi
echo "compose-smoke: all checks passed"
