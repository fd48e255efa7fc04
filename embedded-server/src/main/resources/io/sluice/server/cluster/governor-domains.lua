-- The cluster's count of the domains the crawl governor keeps, beside their hashes (issue 50: one worker token
-- naming 110,000 domains left 107,705 hashes, 38 MB, in Redis; a node's own table stops at 100,000). A sorted set:
-- each domain scored with the time (micros, the governor's clock) until which it counts. governor.lua makes no hash
-- for a domain this set has not counted, and keeps each count's time ahead of its hash's expiry, so no more hashes
-- than the most counted exist, whatever the workers name. Its own key, in its own slot of a Redis Cluster: a new
-- domain costs the node a call here, a known one nothing (and one refresh per quarter hour in use).
-- KEYS[1] the set.  ARGV[1] 'admit' | 'refresh'  ARGV[2] the most domains counted  ARGV[3] now in micros, or '' for
--   Redis's TIME
-- admit: ARGV[4] how long a domain counts from now (micros), ARGV[5] '1' to count them even past the most (an
--   operator's change), ARGV[6..] the domains. Returns one '1' (counted) or '0' (refused: the set is full) per
--   domain, then the micros until the first counted domain's time ends (when one is refused; else 0).
-- refresh: ARGV[4..] pairs of a domain and the time it counts until; a later time replaces an earlier one, and a
--   domain no longer counted is counted again (its hash lives).
local key, op, most = KEYS[1], ARGV[1], tonumber(ARGV[2])
local now
if ARGV[3] ~= '' then
  now = tonumber(ARGV[3])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end

if op == 'refresh' then
  for i = 4, #ARGV - 1, 2 do
    local domain, untilTime = ARGV[i], tonumber(ARGV[i + 1])
    local score = redis.call('ZSCORE', key, domain)
    if not score or tonumber(score) < untilTime then
      redis.call('ZADD', key, string.format('%d', untilTime), domain)
    end
  end
  return 0
elseif op ~= 'admit' then
  return redis.error_reply('unknown operation ' .. tostring(op))
end

-- What has ended leaves, a bounded number per call (the count below is of the live ones whatever remains).
local ended = redis.call('ZRANGEBYSCORE', key, '-inf', '(' .. string.format('%d', now), 'LIMIT', 0, 200)
if #ended > 0 then
  redis.call('ZREM', key, unpack(ended))
end
local live = redis.call('ZCOUNT', key, string.format('%d', now), '+inf')
local untilTime = string.format('%d', now + tonumber(ARGV[4]))
local force = ARGV[5] == '1'
local out, refused = {}, false
for i = 6, #ARGV do
  local score = redis.call('ZSCORE', key, ARGV[i])
  if score and tonumber(score) >= now then
    out[#out + 1] = '1'
  elseif live < most or force then
    redis.call('ZADD', key, untilTime, ARGV[i])
    live = live + 1
    out[#out + 1] = '1'
  else
    out[#out + 1] = '0'
    refused = true
  end
end
local wait = 0
if refused then
  local first = redis.call('ZRANGEBYSCORE', key, string.format('%d', now), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if first[2] then wait = math.max(1, tonumber(first[2]) - now) end
end
out[#out + 1] = string.format('%d', wait)
return out
