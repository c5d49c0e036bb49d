import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('refuses a short admin token with a clear message', () => {
    expect(() => loadConfig({ SVC_ADMIN_TOKEN: 'admin123' })).toThrow(ConfigError);
    expect(() => loadConfig({ SVC_ADMIN_TOKEN: 'admin123' })).toThrow(/SVC_ADMIN_TOKEN must be at least 20 characters/);
    expect(loadConfig({ SVC_ADMIN_TOKEN: 'x'.repeat(20) }).SVC_ADMIN_TOKEN).toBe('x'.repeat(20));
  });

  it('has a shutdown deadline of 10 s by default, configurable', () => {
    expect(loadConfig({}).SVC_SHUTDOWN_TIMEOUT_MS).toBe(10_000);
    expect(loadConfig({ SVC_SHUTDOWN_TIMEOUT_MS: '2500' }).SVC_SHUTDOWN_TIMEOUT_MS).toBe(2500);
    expect(() => loadConfig({ SVC_SHUTDOWN_TIMEOUT_MS: 'soon' })).toThrow(ConfigError);
  });
});
