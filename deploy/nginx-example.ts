/** The parameters deploy/nginx.conf (the example for real machines) is rendered with. */
import type { NginxOptions } from './nginx-config.ts';

export const EXAMPLE: NginxOptions = {
  listen: 80,
  nodes: [
    { host: '10.0.0.11', port: 8080 },
    { host: '10.0.0.12', port: 8080 },
    { host: '10.0.0.13', port: 8080 },
  ],
  prefix: '/var/lib/svc-nginx',
  workerProcesses: 'auto',
  accessLog: '/var/lib/svc-nginx/access.log',
};
