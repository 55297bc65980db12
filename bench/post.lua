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

-- BENCH_UNIQUE=1: every request a Pod never seen before, as the first Pod of
-- a new workload: a label no policy reads, numbered per request, follows the
-- Pod's pod-template-hash label. BENCH_RUN (by default the start's time in
-- seconds) names the run, so that no run repeats an earlier run's Pods.
if os.getenv("BENCH_UNIQUE") == "1" then
  local marker = '"pod-template-hash":"7d9f8b6c4"'
  local at = assert(string.find(wrk.body, marker, 1, true), "the body has no pod-template-hash label")
  local run = os.getenv("BENCH_RUN") or tostring(os.time())
  local head = string.sub(wrk.body, 1, at + #marker - 1) .. ',"bench.topogate.dev/sequence":"' .. run .. '-'
  local tail = '"' .. string.sub(wrk.body, at + #marker)
  local sequence = 0
  request = function()
    sequence = sequence + 1
    return wrk.format(nil, nil, nil, head .. sequence .. tail)
  end
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"durationUs":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
