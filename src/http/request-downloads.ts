import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ImageLoadError } from '../services/media-service.ts';
import { withDownloadSignal } from '../util/download-scope.ts';

/**
 * Every route's handler runs with a download signal: downloads stop when the client goes away
 * before its answer (they went on for minutes for nobody) or when the request's downloads ran past
 * `totalMs` (`FetchLimits.requestTotalMs`); the records not yet loaded then fail as records do.
 */
export function registerRequestDownloads(app: FastifyInstance, totalMs: number): void {
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      return withDownloadSignal(() => downloadsSignals(reply, totalMs), () => handler.call(this, request, reply), request.principal?.account.id, request.routeOptions.config.storesNothing === true);
    };
  });
}

function downloadsSignals(reply: FastifyReply, totalMs: number): { any: AbortSignal; gone: AbortSignal } {
  const gone = new AbortController();
  const res = reply.raw;
  // work the handler left running after its answer was sent is no longer the request's to stop
  if (res.writableFinished) return { any: gone.signal, gone: gone.signal };
  const onClose = () => {
    if (!res.writableFinished) gone.abort(new ImageLoadError('the request was cancelled by its client'));
  };
  if (res.destroyed) onClose();
  else res.once('close', onClose);
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(new ImageLoadError(`the request's downloads took over ${totalMs / 1000} s in all`)), totalMs);
  timer.unref();
  res.once('close', () => clearTimeout(timer));
  return { any: AbortSignal.any([gone.signal, budget.signal]), gone: gone.signal };
}
