-- Compare-and-set of the cluster's policy, and its entry in the change log, as one atomic step: no node
-- can slip a change between the version check, the write and the log entry.
-- KEYS[1] the document (hash: version, policy, epoch)   KEYS[2] the change log (stream)
-- KEYS[3] the bans changed since the document's policy (policy-bans.lua): the whole policy written holds them
-- ARGV[1] the version the change was based on           ARGV[2] the new policy, JSON, its version ARGV[1] + 1
-- ARGV[3] the audit entry, JSON                         ARGV[4] the node making the change
-- ARGV[5] about how many entries the log keeps
-- ARGV[6] the node's own version, ARGV[7] its policy, JSON, ARGV[8] a fresh epoch (all three, or none)
-- When Redis holds no document (it restarted empty and no node has put its policy back yet), the node's own policy
-- is seeded first, as policy-seed.lua would (policy-seeding.lua), in the same atomic step: an operator's change never
-- fails for that moment, and no other node can slip a seed or a change between the two. The change is then judged
-- against the seeded version like any other.
-- Returns {1, new version, entry id}; {0, current version} when ARGV[1] is stale; {-1} when Redis holds no
-- document and the node sent no policy to seed it with.
local current = redis.call('HGET', KEYS[1], 'version')
if not current then
  if not ARGV[6] then
    return {-1}
  end
  seedPolicy(KEYS, ARGV[6], ARGV[7], ARGV[8], ARGV[4], ARGV[5])
  current = ARGV[6]
end
current = tonumber(current)
if current ~= tonumber(ARGV[1]) then
  return {0, current}
end
local version = current + 1
redis.call('HSET', KEYS[1], 'version', version, 'policy', ARGV[2])
redis.call('DEL', KEYS[3])
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*',
  'version', version, 'policy', ARGV[2], 'audit', ARGV[3], 'node', ARGV[4])
return {1, version, id}
