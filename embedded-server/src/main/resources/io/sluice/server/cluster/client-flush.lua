-- Hits counted on a node without asking Redis (clients it knew to be refused until a time), added to their stacks
-- in this second, so the hit stack stays exact to within one heartbeat.
-- KEYS[i] a hit stack (hash: epoch second -> weighted hits)  ARGV[i] the weight to add
local t = redis.call('TIME')
local second = tonumber(t[1])
for i = 1, #KEYS do
  redis.call('HINCRBY', KEYS[i], second, tonumber(ARGV[i]))
  redis.call('PEXPIRE', KEYS[i], 61000)
end
return #KEYS
