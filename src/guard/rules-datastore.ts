/**
 * The `datastore-wipe` rule: commands that empty a whole data store through its client — Redis
 * FLUSHALL/FLUSHDB, MongoDB dropDatabase()/drop()/deleteMany({}), etcd's delete of every key,
 * an Elasticsearch index DELETE, Cypher's `MATCH (n) DETACH DELETE n` — given as arguments, on
 * standard input, or typed at the client's prompt.
 */
import { schemaReset } from "./schema-resets.ts";
import type { Rule } from "./rule-types.ts";
import { options } from "./options.ts";
import { destructiveSql } from "./sql.ts";
import { clientDatabase, isThrowawayName, throwawayEnvironment } from "./throwaway-databases.ts";

/** Clients whose arguments and input are commands of the store. */
export const STORE_CLIENTS = new Set([
  ...["redis-cli", "valkey-cli", "keydb-cli", "mongosh", "mongo", "cypher-shell", "etcdctl"],
]);

/** Redis-like clients: the first word that is not an option (or its value) is the command. */
const REDIS_CLIENTS = new Set(["redis-cli", "valkey-cli", "keydb-cli"]);
const REDIS_VALUED = new Set(["-h", "-p", "-s", "-a", "-u", "-n", "-r", "-i", "-d", "-D", "--user", "--pass"]);
const FLUSH = /^flush(all|db)$/i;
const FLUSH_WHY = "FLUSHALL/FLUSHDB deletes every key";

/** The command a redis-cli invocation runs from its arguments (`redis-cli -n 2 flushdb` → flushdb). */
function redisCommand(args: string[]): string | undefined {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) i += REDIS_VALUED.has(args[i]!) ? 2 : 1;
  return args[i];
}

const WIPES: { re: RegExp; why: string }[] = [
  // Typed or piped: a line that starts with the command.
  { re: /(^|[\n;])\s*flush(all|db)\b/i, why: FLUSH_WHY },
  { re: /\.\s*dropDatabase\s*\(|\bdropDatabase\s*:/, why: "dropDatabase() deletes the whole database" },
  { re: /\.\s*drop\s*\(\s*\)/, why: "drop() deletes a whole collection" },
  { re: /\.\s*(deleteMany|remove)\s*\(\s*\{\s*\}\s*\)/, why: "deleteMany({}) deletes every document" },
  { re: /\bdetach\s+delete\b/i, why: "MATCH … DETACH DELETE deletes the graph's nodes" },
  { re: /\.\s*(updateMany|replaceMany)\s*\(\s*\{\s*\}/, why: "updateMany({}) overwrites every document" },
  { re: /\.\s*shutdownServer\s*\(/, why: "shutdownServer() stops the database" },
];

/** Why `text` (a store command or script) empties the store, or null. */
export function storeWipe(text: string): string | null {
  for (const w of WIPES) if (w.re.test(text)) return w.why;
  return null;
}

/** `etcdctl del "" --from-key` / `del --prefix ""` / `del --prefix /`: every key. */
function etcdWipe(args: string[]): string | null {
  const o = options(args);
  if (o.operands[0] !== "del") return null;
  const key = o.operands[1] ?? "";
  const all = o.long.has("from-key") ? key === "" || key === "\0" : o.long.has("prefix") && /^\/?$/.test(key);
  return all ? "etcdctl del of every key empties the store" : null;
}

/** A database's own file: `app.db`, `db.sqlite3`, `prod.sqlite`, a Redis dump or append-only file. */
const DATABASE_FILE = /\.(db|sqlite3?|db3|mdb|accdb|rdb|aof|duckdb|realm)$/;
/** Names of databases made to be thrown away: tests, scratch and sample data, caches. */
const THROWAWAY_DATABASE = /test|tmp|temp|scratch|sample|example|fixture|cache|mock|dev|demo|seed/i;

/** `rm app.db`, `rm -f db.sqlite3`: a database deleted with its file (test and scratch ones aside). */
function databaseFileDeleted(program: string, args: string[]): string | null {
  if (!/^(rm|shred|unlink|srm)$/.test(program)) return null;
  const file = options(args).operands.find((w) => {
    const base = w.slice(w.lastIndexOf("/") + 1);
    return DATABASE_FILE.test(base) && !THROWAWAY_DATABASE.test(w) && !/[*?]/.test(base);
  });
  return file ? `${program} deletes the database ${file}` : null;
}

/** SQL given to an HTTP API (InfluxDB's `q=DROP DATABASE x`, a SQL gateway's body). */
function sqlOverHttp(args: string[]): string | null {
  const bodies = args.filter((_a, i) => /^(-d|--data(-\w+)?|--data-urlencode|-F|--form)$/.test(args[i - 1] ?? ""));
  for (const body of bodies) {
    const why = destructiveSql(body.replace(/^\w+=/, ""));
    if (why) return `${why} (sent over HTTP)`;
  }
  return null;
}

/** A URL naming one document (`/index/_doc/1`), not the index. */
const ONE_DOCUMENT = /\/_(doc|update|create)\//;

/** `curl -X DELETE http://…:9200/index`: an Elasticsearch/OpenSearch index and its documents. */
function searchIndexDelete(args: string[]): string | null {
  const method = args.findIndex((a) => a === "-X" || a === "--request");
  const verb = method === -1 ? args.find((a) => /^-X\w+$/.test(a))?.slice(2) : args[method + 1];
  if (verb?.toUpperCase() !== "DELETE") return null;
  // Elasticsearch/OpenSearch (9200) an index; CouchDB (5984), Solr (8983), ArangoDB (8529) a database named alone.
  const url = args.find(
    (a) =>
      ((/:(9200|9201)\b/.test(a) || /\/_all\b|elastic|opensearch/.test(a)) && !ONE_DOCUMENT.test(a)) ||
      /:(5984|8983|8529)\/[^/?]+\/?$/.test(a),
  );
  return url ? `DELETE ${url} deletes a search index and its documents` : null;
}

/** Redis commands that delete what they are given: fed every key by `KEYS *` or `--scan`, every key goes. */
const REDIS_DELETE = /^(del|unlink)$/i;
/** A redis-cli listing every key: `KEYS *`, `--scan` with no pattern or `*`. */
function listsEveryKey(argv: string[]): boolean {
  if (!REDIS_CLIENTS.has(argv[0] ?? "")) return false;
  const args = argv.slice(1);
  if (args.includes("--scan")) {
    const pattern = args[args.indexOf("--pattern") + 1];
    return !args.includes("--pattern") || pattern === "*";
  }
  const command = redisCommand(args);
  return /^keys$/i.test(command ?? "") && args[args.indexOf(command ?? "") + 1] === "*";
}

/** Other stores' own tools: a queue purged, a topic deleted, a cluster dropped, a cache flushed. */
function storeToolWipe(program: string, args: string[]): string | null {
  const w = args.filter((a) => !a.startsWith("-"));
  if (program === "rabbitmqctl" && /^(purge_queue|delete_queue|delete_vhost|reset|force_reset)$/.test(w[0] ?? "")) {
    return `rabbitmqctl ${w[0]} deletes queued messages`;
  }
  if (/^kafka-topics(\.sh)?$/.test(program) && args.includes("--delete"))
    return "kafka-topics --delete deletes a topic";
  if (program === "consul" && w[0] === "kv" && w[1] === "delete" && args.some((a) => /^--?recurse$/.test(a))) {
    return "consul kv delete -recurse deletes a whole prefix";
  }
  // BigQuery's `bq rm -r -f DATASET`, `bq rm -t TABLE`; NATS JetStream's `nats stream rm|purge`.
  if (program === "bq" && w[0] === "rm") return "bq rm deletes a dataset or table";
  if (program === "nats" && /^(stream|str|kv|obj)$/.test(w[0] ?? "") && /^(rm|del|purge)$/.test(w[1] ?? "")) {
    return `nats ${w[0]} ${w[1]} deletes stored messages`;
  }
  if (program === "influx" && /^(bucket|org)$/.test(w[0] ?? "") && w[1] === "delete") {
    return `influx ${w[0]} delete deletes stored data`;
  }
  if (program === "pg_dropcluster") return "pg_dropcluster deletes a PostgreSQL cluster and its data";
  if (program === "memcflush") return "memcflush deletes every cached item";
  return null;
}

export const DATASTORE_RULE: Rule = {
  id: "datastore-wipe",
  summary:
    "emptying a data store: redis-cli FLUSHALL/FLUSHDB (or KEYS * | xargs DEL), MongoDB dropDatabase()/drop(), " +
    "etcdctl del of every key, an Elasticsearch index DELETE, rabbitmqctl purge/reset, kafka-topics --delete",
  check({ inv, pipeline, index }) {
    const [program = "", ...args] = inv.argv;
    if (program === "etcdctl") return etcdWipe(args);
    // `_delete_by_query` with `match_all`: every document of the index, deleted one by one.
    const everyDocument = args.some((a) => a.includes("_delete_by_query")) && args.some((a) => a.includes("match_all"));
    if (/^(curl|http|xh)$/.test(program) && everyDocument)
      return "_delete_by_query of match_all deletes every document";
    if (program === "curl" || program === "http" || program === "xh")
      return searchIndexDelete(args) ?? sqlOverHttp(args);
    // `RAILS_ENV=test rails db:drop`: the environment before the command names the test database.
    const testing = throwawayEnvironment(inv.source.env ?? []);
    const tool = storeToolWipe(program, args) ?? (testing ? null : schemaReset(inv.argv));
    if (tool) return tool;
    // `echo flush_all | nc host 11211`: memcached's text protocol, typed through a socket tool.
    const socket = /^(nc|ncat|netcat|telnet|socat)$/.test(program);
    if (socket && pipeline.slice(0, index).some((f) => f.argv.some((a) => /\bflush_?(all|db)\b/i.test(a)))) {
      return "flush_all (FLUSHALL) deletes every cached item or key";
    }
    const file = databaseFileDeleted(program, args);
    if (file) return file;
    if (!STORE_CLIENTS.has(program)) return null;
    // `mongosh test --eval 'db.dropDatabase()'`: a test or scratch database.
    const database = /^mongo(sh)?$/.test(program) ? clientDatabase(args) : null;
    if (database !== null && isThrowawayName(database)) return null;
    const redis = REDIS_CLIENTS.has(program);
    const command = redisCommand(args) ?? "";
    if (redis && FLUSH.test(command)) return `${FLUSH_WHY} (${program})`;
    // A Lua script run by EVAL, or SHUTDOWN NOSAVE (what is not yet saved is lost).
    if (redis && /^(eval|fcall)$/i.test(command) && /\bflush(all|db)\b/i.test(args.join(" "))) {
      return `${FLUSH_WHY} (${program} EVAL)`;
    }
    if (redis && /^shutdown$/i.test(command) && args.some((a) => /^nosave$/i.test(a))) {
      return "SHUTDOWN NOSAVE stops the server and loses what it has not saved";
    }
    if (redis && REDIS_DELETE.test(command) && pipeline.slice(0, index).some((f) => listsEveryKey(f.argv))) {
      return `${program} deletes every key the listing before it printed`;
    }
    // What the client reads: its arguments, a here-document, what the pipe feeds it.
    const piped = pipeline.slice(0, index).map((f) => [...f.argv.slice(1), f.source.stdin ?? ""].join(" "));
    for (const text of [redis ? "" : args.join(" "), inv.source.stdin ?? "", ...piped]) {
      const why = storeWipe(text);
      if (why) return `${why} (${program})`;
    }
    return null;
  },
};
