-- wrk script: POST the AdmissionReview in $BENCH_BODY as the API server
-- does, and print the summary as one JSON line for bench/load.ts.
local file = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, */*"
if os.getenv("BENCH_CLOSE") == "1" then
  wrk.headers["Connection"] = "close"
end

-- BENCH_RUN (by default the start's time in seconds) names the run, so that no
-- run repeats an earlier run's Pods or uids.
local run = os.getenv("BENCH_RUN") or tostring(os.time())
local sequence = 0

-- BENCH_UNIQUE=1: every request a Pod never seen before, as the first Pod of
-- a new workload: a label no policy reads, numbered per request, follows the
-- Pod's pod-template-hash label.
if os.getenv("BENCH_UNIQUE") == "1" then
  local marker = '"pod-template-hash":"7d9f8b6c4"'
  local at = assert(string.find(wrk.body, marker, 1, true), "the body has no pod-template-hash label")
  local head = string.sub(wrk.body, 1, at + #marker - 1) .. ',"bench.topogate.dev/sequence":"' .. run .. '-'
  local tail = '"' .. string.sub(wrk.body, at + #marker)
  request = function()
    sequence = sequence + 1
    return wrk.format(nil, nil, nil, head .. sequence .. tail)
  end
else
  -- Otherwise every request is a replica as the API server sends one: the
  -- same Pod, with a request uid of its own and a token volume name of its
  -- own (the ServiceAccount admission plugin draws five characters per Pod).
  local uid_at = assert(string.find(wrk.body, '"uid":"', 1, true), "the body has no uid") + 7
  local uid_end = string.find(wrk.body, '"', uid_at, true)
  local parts = { string.sub(wrk.body, 1, uid_at - 1), "" }
  local names = {}
  local rest = string.sub(wrk.body, uid_end)
  local from = 1
  while true do
    local s, e = string.find(rest, "kube%-api%-access%-%w%w%w%w%w", from)
    if not s then break end
    parts[#parts + 1] = string.sub(rest, from, s - 1)
    parts[#parts + 1] = ""
    names[#names + 1] = #parts
    from = e + 1
  end
  parts[#parts + 1] = string.sub(rest, from)
  local alphabet = "bcdfghjklmnpqrstvwxz2456789"
  request = function()
    sequence = sequence + 1
    parts[2] = run .. "-" .. sequence
    local name, left = "kube-api-access-", sequence
    for _ = 1, 5 do
      local digit = left % 27
      name = name .. string.sub(alphabet, digit + 1, digit + 1)
      left = (left - digit) / 27
    end
    for _, slot in ipairs(names) do parts[slot] = name end
    return wrk.format(nil, nil, nil, table.concat(parts))
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"durationUs":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
