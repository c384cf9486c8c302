-- wrk script: deferred-link claims by fingerprint (no token) from the Android app, each from the address of a
-- random earlier click (claims-fill.lua's addressing), with its own install id.
local clicks = tonumber(os.getenv("CLICKS") or "1000000")
local next_id = 0
local counter = 0

function setup(thread)
    thread:set("tid", next_id)
    next_id = next_id + 1
end

function init(args)
    math.randomseed(1000 + (tid or 0))
end

function address(n)
    return string.format("%d.%d.%d.%d", 11 + math.floor(n / 262144), math.floor(n / 1024) % 256, math.floor(n / 4) % 256, n % 4 + 1)
end

function request()
    counter = counter + 1
    local n = math.random(0, clicks - 1)
    local body = string.format(
        '{"bundleId": "jp.furyu.pictlink.android", "platform": "ANDROID", "osVersion": "14", "installId": "bench-%d-%d", ' ..
        '"device": {"deviceModelName": "Pixel 7", "languageCode": "en-US"}}', tid or 0, counter)
    return wrk.format("POST", "/v1/installAttribution",
        { ["X-Forwarded-For"] = address(n), ["Content-Type"] = "application/json", ["Host"] = "go.pictlink.com" }, body)
end
