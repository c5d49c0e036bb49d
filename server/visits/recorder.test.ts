import { describe, expect, it } from 'vitest';
import type { VisitStore } from '../state/visits.ts';
import type { EventLog } from './event-log.ts';
import { createRecorder } from './recorder.ts';

function recorderWithSightings() {
  const written: [string, string, string][] = [];
  const visits = {
    recordTagSighting: async (tagId: string, origin: string, at: string) => void written.push([tagId, origin, at]),
  } as unknown as VisitStore;
  return { recorder: createRecorder({ visits, events: {} as EventLog }), written };
}

describe('tagSeen', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 12, 0, s));

  it('writes a (tag, origin) sighting at most once a minute, each pair on its own', () => {
    const { recorder, written } = recorderWithSightings();
    recorder.tagSeen('t1', 'https://a.example', at(0));
    recorder.tagSeen('t1', 'https://a.example', at(59));
    recorder.tagSeen('t1', 'https://b.example', at(30));
    recorder.tagSeen('t2', 'https://a.example', at(30));
    recorder.tagSeen('t1', 'https://a.example', at(60));
    expect(written).toEqual([
      ['t1', 'https://a.example', '2026-11-24T12:00:00.000Z'],
      ['t1', 'https://b.example', '2026-11-24T12:00:30.000Z'],
      ['t2', 'https://a.example', '2026-11-24T12:00:30.000Z'],
      ['t1', 'https://a.example', '2026-11-24T12:01:00.000Z'],
    ]);
  });

  it('writes nothing for a request without an origin', () => {
    const { recorder, written } = recorderWithSightings();
    recorder.tagSeen('t1', null, at(0));
    expect(written).toEqual([]);
  });

  it('stays bounded: past 10,000 remembered pairs it starts over (and writes again)', () => {
    const { recorder, written } = recorderWithSightings();
    for (let i = 0; i < 10_000; i++) recorder.tagSeen(`t${i % 200}`, `https://o${i}.example`, at(0));
    recorder.tagSeen('t0', 'https://o0.example', at(1));
    expect(written.length).toBe(10_000);
    recorder.tagSeen('t0', 'https://new.example', at(1));
    recorder.tagSeen('t0', 'https://o0.example', at(2));
    expect(written.length).toBe(10_002);
  });
});
