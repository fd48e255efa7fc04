-- Seeding the cluster's policy, shared by policy-seed.lua (a follower that finds Redis empty, or behind it) and
-- policy-cas.lua (an operator's change that finds Redis empty first); LuaScript puts this text ahead of theirs.
-- keys: the document (hash: version, policy, epoch), the change log (stream), the bans changed since the document's
-- policy (the whole policy written holds them). The seed goes into the log like a change, with no audit entry (no
-- operator made it), so the other nodes take it.
local function seedPolicy(keys, version, policy, epoch, node, logLength)
  redis.call('HSET', keys[1], 'version', version, 'policy', policy, 'epoch', epoch)
  redis.call('DEL', keys[3])
  redis.call('XADD', keys[2], 'MAXLEN', '~', logLength, '*',
    'version', version, 'policy', policy, 'audit', '', 'node', node)
end
