//! The Redis store's Lua scripts: each runs atomically on the server.

/// KEYS: entries, uuids, sessions, summaries, versions, subkeys.
/// ARGV: session id, subpath (`""` for main), expected version, summary
/// data, then (uuid or `""`, entry JSON) pairs. Returns the number of
/// entries pushed, or -1 when the version moved.
pub(super) const APPEND_LUA: &str = r"
local sid, sub, expected, data = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if sub == '' then
  local ver = redis.call('HGET', KEYS[5], sid) or '0'
  if ver ~= expected then return -1 end
end
local added = 0
for i = 5, #ARGV, 2 do
  if ARGV[i] == '' or redis.call('SADD', KEYS[2], ARGV[i]) == 1 then
    redis.call('RPUSH', KEYS[1], ARGV[i + 1])
    added = added + 1
  end
end
if added == 0 then return 0 end
if sub == '' then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local prev = redis.call('ZSCORE', KEYS[3], sid)
  if prev and tonumber(prev) >= now then now = tonumber(prev) + 1 end
  redis.call('ZADD', KEYS[3], now, sid)
  redis.call('HSET', KEYS[4], sid, data)
  redis.call('HINCRBY', KEYS[5], sid, 1)
else
  redis.call('SADD', KEYS[6], sub)
end
return added
";

/// KEYS: sessions, summaries, versions, subkeys, then the entries and uuid
/// keys of the main transcript and of every subpath read before.
/// ARGV: session id, number of subpaths read. Returns -1 (and deletes
/// nothing) when a subpath was added since.
pub(super) const DELETE_LUA: &str = r"
if redis.call('SCARD', KEYS[4]) ~= tonumber(ARGV[2]) then return -1 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
for i = 4, #KEYS do redis.call('DEL', KEYS[i]) end
return 1
";
