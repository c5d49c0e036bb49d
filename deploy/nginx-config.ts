/**
 * The nginx configuration that balances svc nodes, as one pure function: `npm run cluster` renders it
 * for local nodes, and deploy/nginx.conf (the example for real machines) is this function's output for
 * three machines (nginx-config.test.ts keeps the two equal and runs `nginx -t` on the rendering).
 *
 * Decisions it encodes:
 * - Visitor IP: `X-Forwarded-For $remote_addr` REPLACES whatever the client sent, so with nginx as the
 *   edge a visitor cannot pick its own address; nodes trust nginx through SVC_TRUST_PROXY.
 * - Retries: nginx passes a GET to the next node after an error or timeout even when the first node had
 *   already received it (field-notes: only POST/PATCH/LOCK are held back once sent). `GET
 *   /v3/company/details` is metered, so a node that charged and then died would see its request charged
 *   again elsewhere. Every request therefore carries `X-Request-Id: $request_id` — the same value on each
 *   attempt of one client request — and the nodes make an identification charge at most once per request
 *   id (server/http/request-id.ts), so the retry answers without a second charge. Retries are still
 *   bounded (2 tries, 5 s) so a poisonous request cannot walk the whole pool. POSTs (enrichment, people)
 *   are never retried once sent, which nginx guarantees by default.
 * - Health: passive checks (open-source nginx): a node that fails `max_fails` times is skipped for
 *   `fail_timeout`; the shared `zone` makes every worker see it. `/readyz` on each node is there for an
 *   active checker (nginx Plus, HAProxy, Kubernetes, a monitoring probe).
 */

export interface NginxNode {
  host: string;
  port: number;
}

export interface NginxOptions {
  /** Where nginx listens: a port or `address:port`. */
  listen: string | number;
  nodes: NginxNode[];
  /** Folder for nginx's pid file, temp folders and logs (its own prefix: no /var writes, no root needed). */
  prefix: string;
  /** `auto` on a real machine; 1 locally (the nodes need the cores). */
  workerProcesses?: number | 'auto';
  /** Access log path, or null for none (the nodes log requests themselves). */
  accessLog?: string | null;
  /** Failed attempts before a node is skipped, and for how long (passive health check). */
  maxFails?: number;
  failTimeout?: string;
}

export function renderNginxConfig(o: NginxOptions): string {
  if (o.nodes.length === 0) throw new Error('nginx needs at least one node');
  const p = o.prefix.replace(/\/+$/, '');
  const maxFails = o.maxFails ?? 1;
  const failTimeout = o.failTimeout ?? '5s';
  const servers = o.nodes.map((n) => `        server ${n.host}:${n.port} max_fails=${maxFails} fail_timeout=${failTimeout};`).join('\n');
  const accessLog = o.accessLog ? `access_log ${o.accessLog} svc;` : 'access_log off;';
  return `# svc: nginx in front of ${o.nodes.length} svc node(s). Rendered by deploy/nginx-config.ts.
# Runs in the foreground (under systemd or a supervisor) with its own prefix for pid, temp folders and logs:
#   nginx -p ${p} -e ${p}/error.log -c <this file>
worker_processes ${o.workerProcesses ?? 'auto'};
daemon off;
pid ${p}/nginx.pid;
error_log ${p}/error.log warn;

events {
    worker_connections 4096;
}

http {
    # Which node answered (a retried request lists every node tried: "a, b" and their statuses) and the
    # request id the nodes saw, so a charge can be traced to its request.
    log_format svc '$remote_addr [$time_iso8601] "$request" $status $body_bytes_sent $request_time '
                   'upstream=$upstream_addr upstream_status=$upstream_status request_id=$request_id';
    ${accessLog}
    client_body_temp_path ${p}/temp/client_body;
    proxy_temp_path ${p}/temp/proxy;
    fastcgi_temp_path ${p}/temp/fastcgi;
    uwsgi_temp_path ${p}/temp/uwsgi;
    scgi_temp_path ${p}/temp/scgi;
    server_tokens off;
    # svc bounds request bodies itself (16 KB → 413 with a JSON error); let them through to it.
    client_max_body_size 1m;

    upstream svc_nodes {
        # Shared memory: every nginx worker sees the same failed nodes.
        zone svc_nodes 64k;
${servers}
        # Reused connections to the nodes (they keep idle sockets 65 s, longer than nginx's 60 s).
        keepalive 64;
        keepalive_timeout 60s;
    }

    server {
        listen ${o.listen};

        location / {
            proxy_pass http://svc_nodes;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            # The visitor's address, replacing anything the client claimed (nodes: SVC_TRUST_PROXY).
            proxy_set_header X-Forwarded-For $remote_addr;
            proxy_set_header X-Forwarded-Proto $scheme;
            # Same id on every attempt of one client request: a retried metered GET is charged once.
            proxy_set_header X-Request-Id $request_id;
            proxy_connect_timeout 2s;
            proxy_read_timeout 30s;
            proxy_next_upstream error timeout;
            proxy_next_upstream_tries 2;
            proxy_next_upstream_timeout 5s;
        }
    }
}
`;
}
