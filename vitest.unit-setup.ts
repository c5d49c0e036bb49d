/**
 * Before each file of the unit project (workers shared, isolate: false): our own modules are evaluated
 * afresh for the file, as in a worker of its own, so its vi.mock calls apply to what it imports and no
 * module-level state (caches, registries) leaks from the file before. Packages stay loaded — that is the
 * saving — so the one package registry our modules fill at load, prom-client's, is emptied too
 * (server/observability/metrics.ts registers its metrics again).
 */
import client from 'prom-client';
import { vi } from 'vitest';

vi.resetModules();
client.register.clear();
