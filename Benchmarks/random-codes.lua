-- wrk script: each request a short link picked at random from the first N codes of CODES (a file, one code a
-- line), as a desktop browser on go.pictlink.com: clicks spread over N links, as a personalised mailing makes them.
local file = os.getenv("CODES")
local limit = tonumber(os.getenv("N") or "0")
local codes = {}
for line in io.lines(file) do
    codes[#codes + 1] = line
    if limit > 0 and #codes >= limit then break end
end
local agent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
local headers = { ["Host"] = "go.pictlink.com", ["User-Agent"] = agent }

function init(args)
    math.randomseed(os.time() + (tonumber(tostring({}):sub(8), 16) or 0))
end

function request()
    return wrk.format("GET", "/" .. codes[math.random(#codes)], headers)
end
