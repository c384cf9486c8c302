-- wrk script: the mixed traffic of one address (no forwarded header: every request from 127.0.0.1). Of each 100
-- requests, 70 short-link clicks over CODES (comma-separated codes), 15 long links, 10 routes and 5 fingerprint
-- claims with device signals and fresh install ids; clicks come from iPhones, Android phones, desktops and crawlers.
local codes = {}
for code in string.gmatch(os.getenv("CODES") or "", "[^,]+") do codes[#codes + 1] = code end
local agents = {
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
}
local next_id = 0
local counter = 0

function setup(thread)
    thread:set("tid", next_id)
    next_id = next_id + 1
end

function init(args)
    math.randomseed(3000 + (tid or 0))
end

function request()
    counter = counter + 1
    local roll = math.random(1, 100)
    local agent = agents[math.random(1, #agents)]
    local headers = { ["Host"] = "go.pictlink.com", ["User-Agent"] = agent, ["Accept-Language"] = "en-US,en;q=0.9" }
    if roll <= 70 then
        return wrk.format("GET", "/" .. codes[math.random(1, #codes)], headers)
    elseif roll <= 85 then
        return wrk.format("GET", "/?link=https%3A%2F%2Fpictlink.com%2Fitem%2F" .. math.random(1, 1000) ..
            "&apn=jp.furyu.pictlink.android&ibi=jp.furyu.pictlink.ios&isi=000000001&utm_source=soak", headers)
    elseif roll <= 95 then
        return wrk.format("GET", "/p/" .. math.random(1, 1000), headers)
    end
    local body = string.format(
        '{"bundleId": "jp.furyu.pictlink.ios", "iosVersion": "17.2", "installId": "soak-%d-%d", ' ..
        '"device": {"deviceModelName": "iPhone15,2", "languageCode": "en-US", "timezone": "America/New_York", ' ..
        '"screenResolutionWidth": 390, "screenResolutionHeight": 844}}', tid or 0, counter)
    return wrk.format("POST", "/v1/installAttribution", { ["Host"] = "go.pictlink.com", ["Content-Type"] = "application/json" }, body)
end
