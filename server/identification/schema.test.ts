/**
 * The answer front-end developers code against (`tag/src/types.ts`, shipped as svc.d.ts) and the answer
 * the server validates (`schema.ts`) are one contract: these checks fail to compile (tsc --noEmit, part
 * of `npm test`) or fail at run time the moment either side drifts.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { BUYING_STAGES, COMPANY_MATCHES, CONFIDENCES, PRIVACY_REASONS, PROFILE_FITS } from '../../core/vocabulary.ts';
import type { BuyingStage, CompanyMatch, Confidence, ProfileFit, SvcCompany, SvcData, SvcScore, SvcSegments } from '../../tag/src/types.ts';
import { CompanyScore, IdentificationResponse, IdentifiedCompany, Segments } from './schema.ts';

type Server<T extends z.ZodType> = z.output<T>;
/** Every field of the tag's type, made required (the tag declares them optional; see SvcCompany). */
type Tag<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

/** The tag's SvcCompany keys, in the server's order; the type assertion below proves it is every key. */
const SVC_COMPANY_KEYS = [
  'company_match',
  'additional_comment',
  'companyId',
  'name',
  'display_name',
  'domain',
  'industry',
  'industry_v2',
  'country',
  'country_iso_code',
  'state',
  'state_code',
  'city',
  'address',
  'zip',
  'phone',
  'region',
  'employee_count',
  'employee_range',
  'annual_revenue',
  'revenue_range',
  'sic',
  'sic_description',
  'naics',
  'naics_description',
  'is_blacklisted',
  'is_svcqa',
  'geoIP_country',
  'geoIP_state',
  'geoIP_city',
  'privacy',
] as const satisfies readonly (keyof SvcCompany)[];
const SVC_SCORE_KEYS = [
  'is_svcqa',
  'product',
  'product_display_name',
  'intent_score',
  'buying_stage',
  'profile_score',
  'profile_fit',
] as const satisfies readonly (keyof SvcScore)[];
const SVC_SEGMENTS_KEYS = ['ids', 'names', 'list'] as const satisfies readonly (keyof SvcSegments)[];
const SVC_DATA_KEYS = ['company', 'scores', 'segments', 'confidence'] as const satisfies readonly (keyof SvcData)[];

describe('tag/src/types.ts and the server response schema', () => {
  it('have the same fields with the same types (null rule included)', () => {
    expectTypeOf<Tag<SvcCompany>>().toEqualTypeOf<Server<typeof IdentifiedCompany>>();
    expectTypeOf<Tag<SvcScore>>().toEqualTypeOf<Server<typeof CompanyScore>>();
    expectTypeOf<Tag<SvcSegments>>().toEqualTypeOf<Server<typeof Segments>>();
    expectTypeOf<Server<typeof IdentificationResponse>['confidence']>().toEqualTypeOf<Confidence>();
    expectTypeOf<Server<typeof IdentificationResponse>>().toExtend<SvcData>();
    expectTypeOf<(typeof SVC_COMPANY_KEYS)[number]>().toEqualTypeOf<keyof SvcCompany>();
    expectTypeOf<(typeof SVC_SCORE_KEYS)[number]>().toEqualTypeOf<keyof SvcScore>();
    expectTypeOf<(typeof SVC_SEGMENTS_KEYS)[number]>().toEqualTypeOf<keyof SvcSegments>();
    expectTypeOf<(typeof SVC_DATA_KEYS)[number]>().toEqualTypeOf<keyof SvcData>();
  });

  it('enumerate the same keys at run time', () => {
    expect(Object.keys(IdentifiedCompany.shape)).toEqual([...SVC_COMPANY_KEYS]);
    expect(Object.keys(CompanyScore.shape)).toEqual([...SVC_SCORE_KEYS]);
    expect(Object.keys(Segments.shape)).toEqual([...SVC_SEGMENTS_KEYS]);
    expect(Object.keys(IdentificationResponse.shape)).toEqual([...SVC_DATA_KEYS]);
  });

  it("share the vocabulary: the tag's label types are the vocabulary module's lists", () => {
    expectTypeOf<Confidence>().toEqualTypeOf<(typeof CONFIDENCES)[number]>();
    expectTypeOf<CompanyMatch>().toEqualTypeOf<(typeof COMPANY_MATCHES)[number]>();
    expectTypeOf<BuyingStage>().toEqualTypeOf<(typeof BUYING_STAGES)[number]>();
    expectTypeOf<ProfileFit>().toEqualTypeOf<(typeof PROFILE_FITS)[number]>();
    expect(IdentifiedCompany.shape.company_match.options).toEqual([...COMPANY_MATCHES]);
    expect(CompanyScore.shape.buying_stage.options).toEqual([...BUYING_STAGES]);
    expect(CompanyScore.shape.profile_fit.options).toEqual([...PROFILE_FITS]);
    expect(IdentificationResponse.shape.confidence.options).toEqual([...CONFIDENCES]);
    expectTypeOf<NonNullable<SvcCompany['privacy']>>().toEqualTypeOf<(typeof PRIVACY_REASONS)[number]>();
    expect(IdentifiedCompany.shape.privacy.unwrap().options).toEqual([...PRIVACY_REASONS]);
  });
});
