-- Puts a browser pass key ring into Redis if Redis still holds the one the node judged from (issue 46): the first
-- node of a cluster publishes its own ring (expected ""), a node where an operator rotated the key publishes the
-- rotation (expected: the ring it was rotated from). One step, so two nodes starting at once, or rotating at once,
-- cannot both win: the loser gets the winner's ring in the same answer and adopts it (cluster/ClusterPassKeys).
-- KEYS[1] the ring (hash: ring, the text PassKeyFile writes; node, who published it; at, when, epoch ms)
-- ARGV[1] the ring expected there ("" for none)   ARGV[2] the new ring   ARGV[3] the node   ARGV[4] when
-- Returns {1, ring, node, at} when written; {0, ring, node, at} (what Redis holds) when it held another.
local held = redis.call('HMGET', KEYS[1], 'ring', 'node', 'at')
if (held[1] or '') ~= ARGV[1] then
  return {0, held[1], held[2], held[3]}
end
redis.call('HSET', KEYS[1], 'ring', ARGV[2], 'node', ARGV[3], 'at', ARGV[4])
return {1, ARGV[2], ARGV[3], ARGV[4]}
