import { PGlite } from '@electric-sql/pglite';
import { parentPort, workerData } from 'node:worker_threads';
const db = await PGlite.create(workerData.dir);
parentPort.postMessage({ ready: true });
parentPort.on('message', async (m) => {
  try { const r = await db.query(m.sql); parentPort.postMessage({ id: m.id, rows: r.rows }); }
  catch (e) { parentPort.postMessage({ id: m.id, error: e.message }); }
});
