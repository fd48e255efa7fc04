-- Every node's last report, and Redis's time to judge how old each is, in one round trip.
-- KEYS[1] every node's name, scored by when last heard
-- ARGV[1] the prefix of a node's hash key   ARGV[2] '1' to include the per-second counts
-- Returns {now, name, heard, status, seconds, name, heard, status, seconds, ...} ('' for what is missing).
-- It builds the node keys itself: fine on a single Redis or Sentinel, not on Redis Cluster.
local t = redis.call('TIME')
local out = {string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))}
for _, name in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local v
  if ARGV[2] == '1' then
    v = redis.call('HMGET', ARGV[1] .. name, 'heard', 'status', 'seconds')
  else
    v = redis.call('HMGET', ARGV[1] .. name, 'heard', 'status')
  end
  out[#out + 1] = name
  out[#out + 1] = v[1] or ''
  out[#out + 1] = v[2] or ''
  out[#out + 1] = v[3] or ''
end
return out
