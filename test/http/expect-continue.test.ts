import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, cs, startHarness, type Harness } from '../helpers/harness.ts';

/** What a client asking `Expect: 100-continue` hears before it sends its body, and after. */
describe('Expect: 100-continue', () => {
  let h: Harness;
  let port: number;
  beforeAll(async () => {
    h = await startHarness('sqlite', { limits: { bodyBytes: 100_000 } });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as AddressInfo).port;
  });
  afterAll(() => h?.close());

  /**
   * The final answer in `text` is whole (after any 100 Continue: its head, and as many body bytes as its
   * Content-Length says), and it said it would close the connection.
   */
  function answered(text: string): { whole: boolean; closing: boolean } {
    const rest = text.startsWith('HTTP/1.1 100 Continue\r\n\r\n') ? text.slice('HTTP/1.1 100 Continue\r\n\r\n'.length) : text;
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return { whole: false, closing: false };
    const head = rest.slice(0, end);
    const length = /\r\ncontent-length: (\d+)/i.exec(head);
    const whole = length !== null && Buffer.byteLength(rest.slice(end + 4)) >= Number(length[1]);
    return { whole, closing: /\r\nconnection: close\r\n/i.test(`${head}\r\n`) };
  }

  /**
   * Sends the head only; returns what came back within `ms`, and whether the server closed the connection. It returns
   * as soon as the final answer is whole and, where that answer said it closes the connection, the connection closed:
   * a fixed wait of `ms` each time was 16 of the file's 17 s.
   */
  async function ask(head: string, body?: string, ms = 1500): Promise<{ text: string; closed: boolean }> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    let text = '';
    let closed = false;
    socket.on('data', (d) => {
      text += d.toString();
      // the body goes once the server asked for it, as a client that waits does
      if (body !== undefined && text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        socket.write(body);
        body = undefined;
      }
    });
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    socket.write(head);
    const until = Date.now() + ms;
    for (;;) {
      const { whole, closing } = answered(text);
      if ((whole && (!closing || closed)) || Date.now() >= until) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    socket.destroy();
    return { text, closed };
  }
  const head = (url: string, token: string, length: number) => `POST ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;

  it('a refused token hears 401 without 100 Continue, and the connection closes (the body was never sent)', async () => {
    const sid = await createSession(h);
    const { text, closed } = await ask(head(cs(`session/${sid}/identifications/`), 'lp_not-a-token', 50_000));
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(text).not.toMatch(/100 Continue/);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(closed).toBe(true);
  });

  it('an upload to a session that does not exist hears 404 before its body is asked for (h241: after 7 MB)', async () => {
    for (const path of ['identifications/', 'images/']) {
      const { text, closed } = await ask(head(cs(`session/00000000-0000-4000-8000-000000000000/${path}`), h.account.token, 50_000));
      expect(text, path).toMatch(/^HTTP\/1\.1 404 /);
      expect(text, path).not.toMatch(/100 Continue/);
      expect(closed, path).toBe(true);
    }
    // an existing one is asked for its body, as before
    const sid = await createSession(h);
    const body = JSON.stringify({ identifications: [{ event_id: 'e1', name: 'Pikachu' }] });
    const { text } = await ask(head(cs(`session/${sid}/identifications/`), h.account.token, Buffer.byteLength(body)), body);
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });

  it('an expectation other than 100-continue is a 417 in the house shape (an empty body from Node, h120)', async () => {
    const { text, closed } = await ask(head(cs('session/'), h.account.token, 20).replace('100-continue', '200-ok'));
    expect(text).toMatch(/^HTTP\/1\.1 417 /);
    expect(text).toMatch(/\r\nx-request-id: [0-9a-f-]{36}\r\n/i);
    expect(text).toContain('{"detail":"Expect: 200-ok is not supported; only 100-continue is.","code":"expectation_failed"}');
    expect(closed).toBe(true);
  });

  it('a body over the limit hears 413 without 100 Continue', async () => {
    const sid = await createSession(h);
    const { text, closed } = await ask(head(cs(`session/${sid}/identifications/`), h.account.token, 500_000_000));
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).not.toMatch(/100 Continue/);
    expect(closed).toBe(true);
  });

  it('a body that is not JSON hears 415 without 100 Continue (h98)', async () => {
    const sid = await createSession(h);
    const { text, closed } = await ask(head(cs(`session/${sid}/identifications/`), h.account.token, 50_000).replace('application/json', 'text/plain'));
    expect(text).toMatch(/^HTTP\/1\.1 415 /);
    expect(text).not.toMatch(/100 Continue/);
    expect(closed).toBe(true);
    // a +json type is JSON, here as in the parser (h268: the body it reads was refused before it was asked for)
    const body = JSON.stringify({ name: 'merge patch' });
    const patched = await ask(head(cs(`session/${sid}/`), h.account.token, Buffer.byteLength(body)).replace('POST', 'PATCH').replace('application/json', 'application/merge-patch+json'), body);
    expect(patched.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });

  it('an empty chunked body under any label is asked for and answered, as without Expect (h99)', async () => {
    const sid = await createSession(h);
    const { text } = await ask(`POST ${cs(`session/${sid}/close/`)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${h.account.token}\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n`, '0\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  });

  it('an accepted request hears 100 Continue, sends its body and is answered', async () => {
    const sid = await createSession(h);
    const body = JSON.stringify({ identifications: [{ event_id: 'e1', name: 'Pikachu' }] });
    const { text } = await ask(head(cs(`session/${sid}/identifications/`), h.account.token, Buffer.byteLength(body)), body);
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect((await h.request('GET', cs(`session/${sid}/`))).json().identification_count).toBe(1);
  });
});
