/**
 * A real `redis-server` for tests (and the local cluster): a free port, its own temp folder, AOF on,
 * stopped and restarted on demand (outage tests), removed at the end.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../deploy/processes.ts';

/** The redis-server binary, or an error that says how to install it. */
export function findRedisServer(env: NodeJS.ProcessEnv = process.env): string {
  const install = 'install it with `apt-get install -y redis-server` (or set REDIS_SERVER to its path)';
  if (env.REDIS_SERVER) {
    if (existsSync(env.REDIS_SERVER)) return env.REDIS_SERVER;
    throw new Error(`redis-server not found at REDIS_SERVER=${env.REDIS_SERVER}: ${install}`);
  }
  for (const candidate of ['/usr/bin/redis-server', '/usr/local/bin/redis-server', '/usr/sbin/redis-server']) {
    if (existsSync(candidate)) return candidate;
  }
  const which = spawnSync('sh', ['-c', 'command -v redis-server || command -v valkey-server'], { encoding: 'utf8', env });
  const found = which.stdout.trim();
  if (which.status === 0 && found) return found;
  throw new Error(`redis-server not found: ${install}`);
}

/** A port nobody listens on right now (the same helper the local cluster uses). */
export { freePort } from '../../deploy/processes.ts';

export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  /** Kills the process (SIGKILL by default: a crash) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and folder (AOF replays what was acknowledged). */
  start(): Promise<void>;
  /** Stops the process without closing its sockets (SIGSTOP): a hung server, or a partition without RST. */
  pause(): void;
  /** Lets a paused process run again (SIGCONT). */
  resume(): void;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

export interface RedisServerOptions {
  /** `always` | `everysec` | `no` (default everysec, the recommended production setting). */
  appendfsync?: 'always' | 'everysec' | 'no';
  dir?: string;
  port?: number;
}

export async function startRedisServer(opts: RedisServerOptions = {}): Promise<RedisServer> {
  const bin = findRedisServer();
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'svc-redis-'));
  const port = opts.port ?? (await freePort());
  let child: ChildProcess | null = null;

  const start = async () => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      opts.appendfsync ?? 'everysec',
      '--daemonize',
      'no',
      '--logfile',
      join(dir, 'redis.log'),
    ];
    const proc = spawn(bin, args, { stdio: 'ignore' });
    child = proc;
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}); see ${join(dir, 'redis.log')}`))),
    );
    exited.catch(() => {});
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (await ping(port)) return;
      if (proc.exitCode !== null) await exited;
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  const stop = async (signal: NodeJS.Signals = 'SIGKILL') => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill(signal);
    });
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    stop,
    start,
    pause: () => void (child as ChildProcess | null)?.kill('SIGSTOP'),
    resume: () => void (child as ChildProcess | null)?.kill('SIGCONT'),
    async close() {
      (child as ChildProcess | null)?.kill('SIGCONT');
      await stop();
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** True when something answers PING with PONG on the port. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    import('node:net').then(({ connect }) => {
      const socket = connect(port, '127.0.0.1');
      let data = '';
      socket.setTimeout(500);
      socket.on('connect', () => socket.write('PING\r\n'));
      socket.on('data', (d) => {
        data += d.toString();
        if (data.includes('PONG')) {
          socket.destroy();
          resolve(true);
        } else if (data.includes('LOADING') || data.startsWith('-')) {
          socket.destroy();
          resolve(false);
        }
      });
      socket.on('error', () => resolve(false));
      socket.on('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
  });
}
