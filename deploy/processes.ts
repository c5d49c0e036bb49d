/**
 * Child processes of a local cluster (redis-server, svc nodes, nginx): started in their own process group
 * (so Ctrl-C reaches only the cluster script, which stops them in order), their output kept in a log
 * file and a short in-memory tail for error messages, stopped by pid — never by name.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { connect, createServer } from 'node:net';

export interface ProcessSpec {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Output (stdout and stderr) is appended here. */
  logFile: string;
  /** Also copy each output line here, prefixed with the name (the cluster CLI shows them). */
  echo?: (line: string) => void;
}

const live = new Set<ManagedProcess>();
let exitHookInstalled = false;

/** If the parent dies without stopping them, the children go too (they are in their own process group). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const p of live) p.killNow('SIGKILL');
  });
}

export class ManagedProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  private log: WriteStream | null = null;
  private tailText = '';

  constructor(readonly spec: ProcessSpec) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last few KB of output, for error messages. */
  get tail(): string {
    return this.tailText;
  }

  start(): void {
    if (this.running) throw new Error(`${this.spec.name} is already running`);
    installExitHook();
    this.log ??= createWriteStream(this.spec.logFile, { flags: 'a' });
    const child = spawn(this.spec.command, this.spec.args, {
      cwd: this.spec.cwd,
      env: { ...process.env, ...this.spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    live.add(this);
    const onData = (d: Buffer) => {
      this.log?.write(d);
      this.tailText = (this.tailText + d.toString()).slice(-8000);
      if (this.spec.echo) for (const line of d.toString().split('\n')) if (line.trim()) this.spec.echo(`[${this.spec.name}] ${line}`);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    this.exited = new Promise((resolve) => {
      child.once('error', (e) => {
        this.tailText += `\n${e.message}`;
        live.delete(this);
        resolve(null);
      });
      child.once('exit', (code) => {
        live.delete(this);
        resolve(code);
      });
    });
  }

  /** Sends a signal now (SIGKILL: a crash; SIGTERM: a clean stop) without waiting. */
  killNow(signal: NodeJS.Signals): void {
    if (!this.running) return;
    // SIGKILL goes to the whole process group: nginx's workers would outlive a killed master.
    if (signal === 'SIGKILL') {
      try {
        process.kill(-this.child!.pid!, signal);
        return;
      } catch {
        // the group is gone already; fall through to the process itself
      }
    }
    this.child!.kill(signal);
  }

  /** Signals and waits for the exit; SIGKILL after `graceMs`. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    const exited = this.exited;
    this.killNow(signal);
    const timer = setTimeout(() => this.killNow('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  waitForExit(): Promise<number | null> {
    return this.exited;
  }

  /** Closes the log file (after the last stop). */
  async closeLog(): Promise<void> {
    const log = this.log;
    this.log = null;
    if (log) await new Promise<void>((r) => log.end(() => r()));
  }

  /** Polls `check` until it resolves true; fails with the process's output if it exits or time runs out. */
  async waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.spec.name} exited before ${what}:\n${this.tail}`);
      if (await check().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`${this.spec.name}: no ${what} within ${timeoutMs / 1000} s:\n${this.tail}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Where `freePort` draws from: above the well-known and common service ports. */
const FIRST_PORT = 10_000;

/** The first port of the kernel's ephemeral range (outgoing connections' local ports), 32768 if unknown. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > FIRST_PORT + 1000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether the port can be listened on on 127.0.0.1 right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A port free right now on 127.0.0.1, for a child process to listen on a moment later. Drawn at random
 * below the ephemeral range, not by listen(0): the OS's pick comes from the range outgoing connections
 * take their local ports from, so under a test suite's loopback traffic a port freed here was sometimes
 * taken by a connection before the child listened (EADDRINUSE, seen in CI). Here only another test's
 * random draw in the same instant could collide.
 */
export async function freePort(alsoAt: readonly number[] = []): Promise<number> {
  // `alsoAt`: offsets of ports the child also listens on (a Redis Cluster node's bus at +10000), each
  // held to the same rule, below the ephemeral range and free now.
  const span = ephemeralLow() - FIRST_PORT - Math.max(0, ...alsoAt);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = FIRST_PORT + Math.floor(Math.random() * span);
    if ((await canListen(port)) && (await everyListenable(alsoAt.map((offset) => port + offset)))) return port;
  }
  throw new Error(`no free port found between ${FIRST_PORT} and ${FIRST_PORT + span}`);
}

async function everyListenable(ports: readonly number[]): Promise<boolean> {
  for (const port of ports) if (!(await canListen(port))) return false;
  return true;
}

/** True when something accepts TCP connections on the port. */
export function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Redis `PING` over a raw socket (RESP inline command): readiness needs no client library, and a Redis
 * still loading its AOF answers `-LOADING`, which is not ready.
 */
export function redisPing(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      answer += d.toString();
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.once('error', () => done(false));
  });
}
