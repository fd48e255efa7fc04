-- Each request claims a different client address (believed because 127.0.0.1 is a trusted proxy in
-- the admit-all policy), so Sluice tracks many distinct clients as it would in production.
local counter = 0
request = function()
  counter = counter + 1
  local ip = "10." .. (counter % 250) .. "." .. (math.floor(counter / 250) % 250) .. "." .. (math.floor(counter / 62500) % 250 + 1)
  wrk.headers["X-Forwarded-For"] = ip
  wrk.headers["User-Agent"] = "loadtest/1.0"
  return wrk.format(nil, "/")
end
