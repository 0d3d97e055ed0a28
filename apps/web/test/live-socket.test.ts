import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const invalidateQueries = vi.fn(async () => undefined);
vi.mock('../src/lib/query-client', () => ({ queryClient: { invalidateQueries } }));

/** A WebSocket the test drives: what the page sent, and the server's side (open, frames, close). */
class FakeSocket {
  static readonly OPEN = 1;
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(text: string) {
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }
  frame(message: unknown) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }
  drop() {
    this.readyState = 3;
    this.onclose?.();
  }
}

const trade = (id: number, status: string) => ({ trade: { id, status } });

/**
 * lib/ws.ts after a lost connection (issue 21 §7): the screens are told it is reconnecting (not live) until the server
 * has replayed what was missed; the socket resumes each stream from the last sequence it had caught up to.
 */
describe('the live socket reconnecting', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal('window', { location: { protocol: 'http:', host: 'broker.test' } });
    vi.stubGlobal('WebSocket', FakeSocket);
    FakeSocket.all = [];
    invalidateQueries.mockClear();
  });
  afterEach(async () => {
    const ws = await import('../src/lib/ws');
    ws.disconnectLive();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('is reconnecting from a lost socket until the replay is in, and resumes from the sequences it had', async () => {
    const ws = await import('../src/lib/ws');
    ws.connectLive();
    expect(ws.liveState().status).toBe('connecting');
    const first = FakeSocket.all[0]!;
    first.open();
    expect(first.sent).toEqual([{ type: 'resume', streams: {} }]);
    first.frame({ type: 'resumed', streams: { 'account:7': 3, messages: 0 } });
    expect(ws.liveState()).toEqual({ status: 'live', cursors: { 'account:7': 3, messages: 0 } });

    first.frame({ type: 'trade.opened', payload: trade(41, 'active'), stream: 'account:7', seq: 3 });
    first.frame({ type: 'balance.changed', payload: { account_id: 7, balance: 90 }, stream: 'account:7', seq: 4 });
    expect(ws.liveState().cursors['account:7']).toBe(4);

    // Lost: the screens show it (not live: they poll and say the figures may be stale) and it tries again.
    first.drop();
    expect(ws.liveState().status).toBe('reconnecting');
    await vi.advanceTimersByTimeAsync(1000);
    const second = FakeSocket.all[1]!;
    second.open();
    expect(second.sent).toEqual([{ type: 'resume', streams: { 'account:7': 4, messages: 0 } }]);
    expect(ws.liveState().status).toBe('reconnecting');

    // A frame ahead of the replay does not move the cursor; the replay and `resumed` do.
    second.frame({ type: 'balance.changed', payload: { account_id: 7, balance: 95 }, stream: 'account:7', seq: 9 });
    expect(ws.liveState().cursors['account:7']).toBe(4);
    invalidateQueries.mockClear();
    second.frame({ type: 'trade.settled', payload: trade(41, 'won'), stream: 'account:7', seq: 4, replay: true });
    second.frame({ type: 'resumed', streams: { 'account:7': 9, messages: 0 } });
    expect(ws.liveState()).toEqual({ status: 'live', cursors: { 'account:7': 9, messages: 0 } });
    // The replayed settlement made the trading queries stale: the screen refetches them.
    expect(invalidateQueries).toHaveBeenCalledWith({ queryKey: ['trading'] });
  });

  it('refetches a stream the server cannot replay, and resumes a watched account with its own sequence', async () => {
    const ws = await import('../src/lib/ws');
    ws.connectLive();
    const first = FakeSocket.all[0]!;
    first.open();
    first.frame({ type: 'resumed', streams: { notifications: 20 } });
    const stop = ws.watchAccount(12);
    expect(first.sent.at(-1)).toEqual({ type: 'watch_account', account_id: 12 });
    first.frame({ type: 'watching', account_id: 12, stream: 'account:12', seq: 5 });

    invalidateQueries.mockClear();
    first.frame({ type: 'refetch', stream: 'notifications', seq: 40 });
    expect(invalidateQueries).toHaveBeenCalledWith({ queryKey: ['notifications'] });
    expect(ws.liveState().cursors.notifications).toBe(40);

    first.drop();
    await vi.advanceTimersByTimeAsync(1000);
    const second = FakeSocket.all[1]!;
    second.open();
    expect(second.sent).toEqual([
      { type: 'watch_account', account_id: 12, seq: 5 },
      { type: 'resume', streams: { notifications: 40 } },
    ]);
    stop();
    expect(second.sent.at(-1)).toEqual({ type: 'unwatch_account', account_id: 12 });
    expect(ws.liveState().cursors['account:12']).toBeUndefined();
  });
});
