-- wrk script: ~80 % POST /moods, ~20 % GET /moods?limit=20.
-- wrk -t2 -c16 -d30s --latency -s Load/write-heavy.lua http://127.0.0.1:8080
local counter = 0
local countries = {250, 276, 392, 76, 404, 840}

request = function()
  counter = counter + 1
  if counter % 5 == 0 then
    return wrk.format("GET", "/moods?limit=20")
  end
  local body = string.format('{"rating": %d, "country": %d, "colors": ["#3a7fc2"], "latitude": -1.29, "longitude": 36.82}',
                             counter % 6, countries[(counter % #countries) + 1])
  return wrk.format("POST", "/moods", {["Content-Type"] = "application/json"}, body)
end
