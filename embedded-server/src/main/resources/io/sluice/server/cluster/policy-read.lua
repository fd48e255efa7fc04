-- The cluster's policy as one read: the document's version and policy, and the bans changed since that policy was
-- written (policy-bans.lua), together, so no change lands between them.
-- KEYS[1] the document (hash: version, policy, epoch)   KEYS[2] the change log (unused)   KEYS[3] the bans since
-- Returns {version, policy JSON, {id, ban JSON or '', ...}}, or {} when Redis holds no document.
local fields = redis.call('HMGET', KEYS[1], 'version', 'policy')
if not fields[1] then
  return {}
end
return {fields[1], fields[2], redis.call('HGETALL', KEYS[3])}
