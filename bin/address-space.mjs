// Loaded before anything else that runs WebAssembly (by bin/tsx-cache.mjs, which every start and command loads first):
// the WebAssembly runtime reserves address space up front, so under a virtual-memory cap (`ulimit -v`, `prlimit --as`)
// of 8 or 64 GB the start died in tsx's loader with a stack trace, or in V8 with "heap out of memory" (exit 134, which
// reads as too little RAM), not the one line a start that cannot go on says (h225). Under 96 GB a server or worker is
// refused here, under 24 GB any other command; up to about 256 GB the vision workers' models may still not load, which
// the server's own cannot-start line says (src/server.ts). Linux only.
import fs from 'node:fs';

// a server or worker runs the vision models; another command only the loader's own WebAssembly (32 GB ran every
// command h232 tried, 16 GB did not)
const main = process.argv[1] ?? '';
const serving = /src[\\/]server\.ts$/.test(main) || (/bin[\\/]loupe\.js$/.test(main) && process.argv[2] === 'worker');
const NEEDED = (serving ? 96 : 24) * 2 ** 30;

/** The process's address-space cap in bytes, or null where there is none or it cannot be read. */
export function addressSpaceCap(limits = readLimits()) {
  const line = limits?.split('\n').find((l) => l.startsWith('Max address space'));
  const soft = line?.replace('Max address space', '').trim().split(/\s+/)[0];
  return soft && /^\d+$/.test(soft) ? Number(soft) : null;
}

function readLimits() {
  try {
    return fs.readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

const cap = addressSpaceCap();
if (cap !== null && cap < NEEDED) {
  process.stderr.write(`loupe: cannot start: the process may use ${Math.round(cap / 2 ** 30)} GB of address space (ulimit -v / prlimit --as); its WebAssembly runtime reserves more up front (up to about 256 GB with every model warmed; not memory it uses). Remove the cap and limit memory with a cgroup instead (MemoryMax= in a systemd unit, docker --memory; docs/operations.md "Memory")\n`);
  process.exit(1);
}
