// Reads AIO's watch events as a browser would, with the `eventsource` package (the WHATWG EventSource for Node):
// prints one JSON line per event (type, lastEventId, data) until it has seen `count` file_change events or `seconds`
// passed. Usage: node sse.mjs <url> <count> <seconds>. Used by AioHttpApiTest.
import { EventSource } from "eventsource";

const [url, count, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const es = new EventSource(url);
let changes = 0;
const done = (code) => { es.close(); process.exit(code); };
const print = (type) => (e) => {
  process.stdout.write(JSON.stringify({ type, id: e.lastEventId, data: JSON.parse(e.data) }) + "\n");
  if (type === "file_change" && ++changes >= count) done(0);
};
es.addEventListener("watch_started", print("watch_started"));
es.addEventListener("file_change", print("file_change"));
es.addEventListener("overflow", print("overflow"));
es.onerror = (e) => { process.stderr.write(`sse error: ${e.message ?? e.type}\n`); };
setTimeout(() => done(2), seconds * 1000);
