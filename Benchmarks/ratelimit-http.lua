-- wrk script: POSTs with a wrong API key, each from the next of DISTINCT client addresses (X-Forwarded-For), so
-- every request goes through the per-client limiter: with 10 addresses nearly all are refused (429), with a
-- million each address is new (401). The work per request is otherwise the same.
local distinct = tonumber(os.getenv("DISTINCT") or "10")
local threads = tonumber(os.getenv("THREADS") or "2")
local next_id = 0
local counter = 0

function setup(thread)
    thread:set("tid", next_id)
    next_id = next_id + 1
end

function request()
    counter = counter + 1
    local n = (counter * threads + (tid or 0)) % distinct
    local address = string.format("11.%d.%d.%d", math.floor(n / 65536) % 256, math.floor(n / 256) % 256, n % 256)
    return wrk.format("POST", "/v1/shortLinks?key=rl_benchmark_wrong_key",
        { ["X-Forwarded-For"] = address, ["Content-Type"] = "application/json", ["Host"] = "go.pictlink.com" }, "{}")
end
