-- wrk script: Android clicks on route /p/{n}, each from its own client address (X-Forwarded-For), until CLICKS
-- clicks have been sent over all threads; then each thread stops (anything sent meanwhile is /healthz, which keeps
-- nothing). Four addresses share each /24.
local clicks = tonumber(os.getenv("CLICKS") or "1000000")
local threads = tonumber(os.getenv("THREADS") or "2")
local next_id = 0
local counter = 0
local agent = "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"

function setup(thread)
    thread:set("tid", next_id)
    next_id = next_id + 1
end

function address(n)
    return string.format("%d.%d.%d.%d", 11 + math.floor(n / 262144), math.floor(n / 1024) % 256, math.floor(n / 4) % 256, n % 4 + 1)
end

function request()
    local n = counter * threads + (tid or 0)
    counter = counter + 1
    if n >= clicks then
        return wrk.format("GET", "/healthz")
    end
    return wrk.format("GET", "/p/" .. (n % 1000),
        { ["X-Forwarded-For"] = address(n), ["User-Agent"] = agent, ["Host"] = "go.pictlink.com" })
end

function response(status, headers, body)
    if counter * threads >= clicks then
        wrk.thread:stop()
    end
end
