-- wrk script: ~90 % GET /moods pages (three filter/sort variants), ~10 % POST /moods.
-- wrk -t2 -c16 -d30s --latency -s Load/read-mostly.lua http://127.0.0.1:8080
local counter = 0
local countries = {250, 276, 392, 76, 404, 840}
local pages = {"/moods?limit=20", "/moods?limit=20&minRating=3", "/moods?limit=20&country=250&sort=-rating"}

request = function()
  counter = counter + 1
  if counter % 10 == 0 then
    local body = string.format('{"rating": %d, "country": %d, "colors": ["#3a7fc2", "#ffcc00"], "latitude": 48.86, "longitude": 2.35}',
                               counter % 6, countries[(counter % #countries) + 1])
    return wrk.format("POST", "/moods", {["Content-Type"] = "application/json"}, body)
  end
  return wrk.format("GET", pages[(counter % #pages) + 1])
end
