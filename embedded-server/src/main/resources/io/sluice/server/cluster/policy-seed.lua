-- Puts a node's policy into Redis when Redis holds none, or an older version (it restarted empty, or lost
-- writes in a failover): the highest version any node knows wins, and it goes into the log like a change
-- so the other nodes take it (policy-seeding.lua). A new document gets a new epoch: followers see the log started
-- over.
-- KEYS[1] the document (hash: version, policy, epoch)   KEYS[2] the change log (stream)
-- KEYS[3] the bans changed since the document's policy (policy-bans.lua): the whole policy written holds them
-- ARGV[1] the node's version   ARGV[2] its policy, JSON   ARGV[3] a fresh epoch   ARGV[4] the node
-- ARGV[5] about how many entries the log keeps
-- Returns {1, version, epoch} when seeded; {0, current version, epoch} when Redis had as new a one.
local current = redis.call('HGET', KEYS[1], 'version')
local epoch = redis.call('HGET', KEYS[1], 'epoch')
if current and tonumber(current) >= tonumber(ARGV[1]) then
  return {0, tonumber(current), epoch}
end
if not epoch then
  epoch = ARGV[3]
end
seedPolicy(KEYS, ARGV[1], ARGV[2], epoch, ARGV[4], ARGV[5])
return {1, tonumber(ARGV[1]), epoch}
