/**
 * The local SMTP server greets a client as soon as its connection is set up, as Mailpit does.
 *
 * smtp-server (3.x) holds every greeting 100 ms, to catch clients that talk before it ("421 You talk too soon": a
 * spam heuristic for a server facing the internet) and has no option to turn that off. A test suite's sender opens a
 * connection per mail (nodemailer's default), so the wait was most of each send: ten such senders at once made 91
 * mail/s against the stack and against a server that discards, and 735 mail/s over pooled connections (bench:ingest's
 * row "a connection per mail"). This is smtp-server's own `connect` (dist/cjs/smtp-server.js) with that wait left
 * out, and the early-talker check with it: it guards a server on the internet against spam bots, not a test suite's
 * mail.
 */
import type net from 'node:net';
import type tls from 'node:tls';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { SMTPConnection, type SMTPConnectionOptions } from 'smtp-server/lib/smtp-connection.js';

export class PromptSMTPServer extends SMTPServer {
  /**
   * smtp-server's default answers on the next turn of the loop (setImmediate), by when a client's first command may
   * already be read and refused as early talk; an `onConnect` option replaces this, as it replaces smtp-server's.
   */
  override onConnect(_session: SMTPServerSession, callback: (error?: Error | null) => void): void {
    callback();
  }

  override connect(socket: net.Socket | tls.TLSSocket, socketOptions?: SMTPConnectionOptions | null): void {
    const connection = new SMTPConnection(this, socket, socketOptions);
    this.connections.add(connection);
    connection.on('error', (error: Error) => this._onError(error));
    connection.on('connect', (data) => this._onClientConnect(data));
    // smtp-server's init(), which waits 100 ms before connectionReady().
    connection._setListeners(() => {
      if (this.options.maxClients && this.connections.size > this.options.maxClients) {
        connection.send(421, `${connection.name} Too many connected clients, try again in a moment`, false);
        return;
      }
      connection.connectionReady();
    });
  }
}
