-- A batch of automatic bans for the cluster's policy, and its entry in the change log: the bans themselves, never
-- the whole policy, so the log stays as small as the bans. No version check: bans do not conflict, so a batch is
-- made on whatever version the cluster is at, and takes the next one.
-- KEYS[1] the document (hash: version, policy, epoch)   KEYS[2] the change log (stream)
-- KEYS[3] the bans changed since the document's policy was written (hash: id -> ban JSON, or '' when removed)
-- ARGV[1] the node   ARGV[2] about how many entries the log keeps   ARGV[3] n, the number of bans to add
-- ARGV[4 ..] n pairs (id, ban JSON) to add, then pairs (id, expiry in epoch milliseconds) to remove
-- A ban is added once (its id), and removed once, only when its expiry has passed on Redis's clock: the one clock
-- every node agrees on. A ban added since the document was written leaves the hash when it is removed (the document
-- never held it); one the document's policy holds leaves a tombstone ('') until the next whole policy is written, so
-- the hash never holds more than the bans made since plus those of the document (issue 50: expired bans piled up as
-- tombstones until an operator's edit). An id in neither was removed already (every node asks when a ban expires).
-- Returns {1, new version, entry id, added JSON, removed ids JSON}; {0, current version} when nothing was left to change; {-1} when Redis holds
-- no document.
local current = redis.call('HGET', KEYS[1], 'version')
if not current then
  return {-1}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local added = {}
local i = 4
for _ = 1, tonumber(ARGV[3]) do
  if redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[i + 1]) == 1 then
    added[#added + 1] = ARGV[i + 1]
  end
  i = i + 2
end
local removed = {}
local document = nil
while i < #ARGV do
  local id = ARGV[i]
  if tonumber(ARGV[i + 1]) <= now then
    local held = redis.call('HGET', KEYS[3], id)
    if held and held ~= '' then
      redis.call('HDEL', KEYS[3], id)
      removed[#removed + 1] = cjson.encode(id)
    elseif not held then
      -- The document's policy is compact JSON (Jackson, no spaces); a plain search for the ban's id field says
      -- whether it holds the ban. A false match only writes a tombstone, as before; an id JSON would escape (ids are
      -- UUIDs, but an operator may write any) is not searched for and gets its tombstone, as before.
      document = document or redis.call('HGET', KEYS[1], 'policy') or ''
      if string.find(id, '[^%w%-_.:]') or string.find(document, '"id":"' .. id .. '"', 1, true) then
        redis.call('HSET', KEYS[3], id, '')
        removed[#removed + 1] = cjson.encode(id)
      end
    end
  end
  i = i + 2
end
if #added == 0 and #removed == 0 then
  return {0, tonumber(current)}
end
local version = tonumber(current) + 1
local addedJson = '[' .. table.concat(added, ',') .. ']'
local removedJson = '[' .. table.concat(removed, ',') .. ']'
redis.call('HSET', KEYS[1], 'version', version)
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'version', version, 'kind', 'bans',
  'added', addedJson, 'removed', removedJson, 'node', ARGV[1])
return {1, version, id, addedJson, removedJson}
