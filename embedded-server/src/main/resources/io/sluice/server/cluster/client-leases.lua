-- Many leases at once, in one round trip: renewed (a long request keeps its slots) or forgotten (a release that
-- failed while Redis was away, retried).
-- KEYS[2i-1] client leases  KEYS[2i] address leases, for the i-th lease
-- ARGV[1] 'renew' or 'forget'  ARGV[2] lease ms  ARGV[2+i] the i-th lease id
-- Renewing never brings back a lease already gone (ZADD XX): a release that crossed the renewal wins.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ms = tonumber(ARGV[2])
for i = 3, #ARGV do
  local id = ARGV[i]
  for _, key in ipairs({KEYS[2 * (i - 2) - 1], KEYS[2 * (i - 2)]}) do
    if ARGV[1] == 'renew' then
      if redis.call('ZADD', key, 'XX', 'CH', now + ms, id) == 1 and redis.call('PTTL', key) < ms then
        redis.call('PEXPIRE', key, ms)
      end
    else
      redis.call('ZREM', key, id)
    end
  end
end
return #ARGV - 2
