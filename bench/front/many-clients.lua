-- By default each request claims a different client address (believed because 127.0.0.1 is a trusted proxy in
-- the admit-all policy), so Sluice tracks many distinct clients as it would in production.
-- CLIENTS=N in the environment cycles through N addresses instead (issue #17's set-up: 10,000).
local clients = tonumber(os.getenv("CLIENTS") or "") or 0
local counter = 0
request = function()
  counter = counter + 1
  if clients > 0 then counter = counter % clients end
  local ip = "10." .. (counter % 250) .. "." .. (math.floor(counter / 250) % 250) .. "." .. (math.floor(counter / 62500) % 250 + 1)
  wrk.headers["X-Forwarded-For"] = ip
  wrk.headers["User-Agent"] = "loadtest/1.0"
  return wrk.format(nil, "/")
end
