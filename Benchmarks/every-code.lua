-- wrk script: each thread clicks the codes of CODES (a file, one code a line) in order, its share of them (thread k
-- of n takes codes k, k+n, k+2n, ...), as a desktop browser on go.pictlink.com: one pass over every link fills a
-- cache large enough for all of them.
local file = os.getenv("CODES")
local codes = {}
for line in io.lines(file) do codes[#codes + 1] = line end
local agent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
local headers = { ["Host"] = "go.pictlink.com", ["User-Agent"] = agent }
local threads = 0

function setup(thread)
    thread:set("first", threads)
    threads = threads + 1
end

function init(args)
    step = tonumber(os.getenv("THREADS") or "2")
    next_code = first + 1
end

function request()
    local code = codes[next_code]
    next_code = next_code + step
    if next_code > #codes then next_code = first + 1 end
    return wrk.format("GET", "/" .. code, headers)
end
