-- A node's heartbeat: its report, stamped with Redis's clock (the nodes' clocks may disagree).
-- KEYS[1] the node's hash (heard, status, seconds)   KEYS[2] every node's name, scored by when last heard
-- ARGV[1] the node's name   ARGV[2] how long a silent node is remembered, ms   ARGV[3] its status, JSON
-- ARGV[4] its per-second counts for the last minute, JSON, or '' when unchanged since the last heartbeat
-- Returns Redis's time, ms.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'heard', string.format('%d', now), 'status', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'seconds', ARGV[4])
end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - ttl)
return now
