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

-- BENCH_UNIQUE=annotation: every request a Pod never seen before, new to
-- every memo: an annotation numbered per request, first of the Pod's
-- annotations (annotations are facts a decision is keyed by).
-- BENCH_UNIQUE=label: every request the first Pod of a new workload of the
-- same shape: a label no policy reads, numbered per request, after the Pod's
-- pod-template-hash label (a decision does not see it).
local unique = os.getenv("BENCH_UNIQUE")
if unique == "annotation" or unique == "label" then
  local marker = unique == "label" and '"pod-template-hash":"7d9f8b6c4"' or '"annotations":{'
  local at = assert(string.find(wrk.body, marker, 1, true), "the body has no " .. marker)
  local head, tail
  if unique == "label" then
    head = string.sub(wrk.body, 1, at + #marker - 1) .. ',"bench.topogate.dev/sequence":"' .. run .. '-'
    tail = '"' .. string.sub(wrk.body, at + #marker)
  else
    head = string.sub(wrk.body, 1, at + #marker - 1) .. '"bench.topogate.dev/sequence":"' .. run .. '-'
    tail = '",' .. string.sub(wrk.body, at + #marker)
  end
  request = function()
    sequence = sequence + 1
    return wrk.format(nil, nil, nil, head .. sequence .. tail)
  end
else
  -- Otherwise every request is a replica as the API server sends one: the
  -- same Pod, with a request uid of its own, a token volume name of its own
  -- (the ServiceAccount admission plugin draws five characters per Pod) and a
  -- name of its own: generateName and five characters, in request.name and
  -- metadata.name. (The API server of this writing draws the name only after
  -- admission and sends none; a webhook sent one must cope with it too.)
  -- Marked in the body first, \1 for the uid, \2 for a token name, \3 for a
  -- name, then cut at the marks into the parts put together per request.
  local generate = assert(string.match(wrk.body, '"generateName":"([^"]*)"'), "the body has no generateName")
  local marked = string.gsub(wrk.body, '"uid":"[^"]*"', '"uid":"\1"', 1)
  marked = string.gsub(marked, "kube%-api%-access%-%w%w%w%w%w", "\2")
  local named = '"name":"' .. generate .. '\3",'
  marked = string.gsub(marked, '"namespace":"', named .. '"namespace":"', 1)
  marked = string.gsub(marked, '"generateName":"', named .. '"generateName":"', 1)
  local parts, slots = {}, {}
  for text, mark in string.gmatch(marked, "([^\1\2\3]*)([\1\2\3]?)") do
    parts[#parts + 1] = text
    if mark ~= "" then
      parts[#parts + 1] = ""
      slots[#slots + 1] = { at = #parts, kind = string.byte(mark) }
    end
  end
  local alphabet = "bcdfghjklmnpqrstvwxz2456789"
  local function drawn(number)
    local text, left = "", number
    for _ = 1, 5 do
      local digit = left % 27
      text = text .. string.sub(alphabet, digit + 1, digit + 1)
      left = (left - digit) / 27
    end
    return text
  end
  request = function()
    sequence = sequence + 1
    local values = { run .. "-" .. sequence, "kube-api-access-" .. drawn(sequence), drawn(sequence + 7) }
    for _, slot in ipairs(slots) do parts[slot.at] = values[slot.kind] end
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
