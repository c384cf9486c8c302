-- wrk script: fingerprint claims (no token) from the Android app, each with its own install id, from the crowded
-- address (ADDRESS set) or from the address of a random spread click (crowded-fill.py's addressing). PACE_MS, when
-- set, waits that long before each request of a connection (the per-network claim limit is 20 a second).
local spread = tonumber(os.getenv("SPREAD") or "200000")
local fixed = os.getenv("ADDRESS")
local pace = tonumber(os.getenv("PACE_MS") or "0")
local next_id = 0
local counter = 0

function setup(thread)
    thread:set("tid", next_id)
    next_id = next_id + 1
end

function init(args)
    math.randomseed(2000 + (tid or 0))
end

function delay()
    return pace
end

function address(n)
    return string.format("%d.%d.%d.%d", 11 + math.floor(n / 262144), math.floor(n / 1024) % 256, math.floor(n / 4) % 256, n % 4 + 1)
end

function request()
    counter = counter + 1
    local from = fixed or address(math.random(0, math.floor(spread / 4) - 1))
    local body = string.format(
        '{"bundleId": "jp.furyu.pictlink.android", "platform": "ANDROID", "osVersion": "14", "installId": "crowd-%s-%d-%d", ' ..
        '"device": {"deviceModelName": "Pixel 7", "languageCode": "en-US"}}', fixed and "c" or "q", tid or 0, counter)
    return wrk.format("POST", "/v1/installAttribution",
        { ["X-Forwarded-For"] = from, ["Content-Type"] = "application/json", ["Host"] = "go.pictlink.com" }, body)
end
