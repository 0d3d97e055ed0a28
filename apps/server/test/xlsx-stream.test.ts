import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createXlsxSheetStream } from '../src/modules/exports/xlsx-stream.js';

/**
 * The export's memory stays flat however many rows it writes (issue 4): rows wait for the receiver instead of piling
 * up inside exceljs. 60,000 rows of ~4 kB are ~250 MB of sheet XML; a receiver slower than the producer must not make
 * the process hold that XML in buffers.
 */
describe('the streaming XLSX writer', () => {
  it('waits for a slow receiver instead of buffering the sheet', async () => {
    const rows = 60_000;
    const wide = 'Комментарий менеджера: перезвонить после 18:00. '.repeat(40);
    const x = createXlsxSheetStream('Clients', ['id', 'name', 'note'], []);
    let bytes = 0;
    const receiver = new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        setTimeout(done, 1);
      },
    });
    x.stream.pipe(receiver);
    const finished = new Promise((resolve) => receiver.on('finish', resolve));

    global.gc?.();
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers)), 5);
    for (let i = 0; i < rows; i++) {
      x.addRow([i, `Клиент ${i}`, `${wide}${i}`]);
      peak = Math.max(peak, process.memoryUsage().arrayBuffers);
      if (i % 500 === 0) await x.room();
    }
    await x.finish();
    await finished;
    clearInterval(sample);

    expect(bytes).toBeGreaterThan(100_000); // a real (compressed) file came out
    // Before the writer counted exceljs' inner buffers, this grew to hundreds of MB.
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
  }, 120_000);
});
