/** One vocabulary: every layer uses the very lists of vocabulary.ts, never a copy that could drift. */
import { describe, expect, it } from 'vitest';
import * as generatorSizes from '../data/generate/vocabulary/sizes.ts';
import * as generatorTitles from '../data/generate/vocabulary/titles.ts';
import { CONFIDENCES as SOURCE_CONFIDENCES } from '../data/sources/schema.ts';
import { DEFAULT_RATE_LIMIT } from '../server/console/token-form.ts';
import { PersonScore } from '../server/enrichment/schema.ts';
import { CompanyScore, IdentificationResponse, IdentifiedCompany } from '../server/identification/schema.ts';
import * as policy from '../server/limits/policy.ts';
import * as model from '../server/scoring/model.ts';
import * as classifier from '../server/scoring/title-classifier.ts';
import { NewToken } from './access-records.ts';
import * as vocabulary from './vocabulary.ts';

describe('vocabulary', () => {
  it('is the one list the scoring model, the title classifier and the data generator use', () => {
    expect(model.BUYING_STAGES).toBe(vocabulary.BUYING_STAGES);
    expect(model.PROFILE_FITS).toBe(vocabulary.PROFILE_FITS);
    expect(model.CONTACT_GRADES).toBe(vocabulary.CONTACT_GRADES);
    expect(model.TITLE_LEVELS).toBe(vocabulary.TITLE_LEVELS);
    expect(model.EMPLOYEE_RANGES).toBe(vocabulary.EMPLOYEE_RANGES);
    expect(model.REVENUE_RANGES).toBe(vocabulary.REVENUE_RANGES);
    expect(classifier.TITLE_LEVELS).toBe(vocabulary.TITLE_LEVELS);
    expect(classifier.TITLE_FUNCTIONS).toBe(vocabulary.TITLE_FUNCTIONS);
    expect(generatorTitles.TITLE_LEVELS).toBe(vocabulary.TITLE_LEVELS);
    expect(generatorSizes.EMPLOYEE_RANGES).toBe(vocabulary.EMPLOYEE_RANGES);
    expect(generatorSizes.REVENUE_RANGES).toBe(vocabulary.REVENUE_RANGES);
    expect(SOURCE_CONFIDENCES).toBe(vocabulary.CONFIDENCES);
    // The generator writes titles for a subset of the classifier's functions.
    for (const fn of generatorTitles.TITLE_FUNCTIONS) expect(vocabulary.TITLE_FUNCTIONS).toContain(fn);
  });

  it('is what the response schemas accept', () => {
    expect(IdentifiedCompany.shape.company_match.options).toEqual([...vocabulary.COMPANY_MATCHES]);
    expect(IdentificationResponse.shape.confidence.options).toEqual([...vocabulary.CONFIDENCES]);
    expect(CompanyScore.shape.profile_fit.options).toEqual([...vocabulary.PROFILE_FITS]);
    expect(PersonScore.shape.contact_grade.options).toEqual([...vocabulary.CONTACT_GRADES]);
    expect(PersonScore.shape.company_buying_stage.options).toEqual([...vocabulary.BUYING_STAGES]);
  });

  it('has one default token limit: the rate-limit policy, new tokens and the console form use it', () => {
    expect(vocabulary.DEFAULT_TOKEN_LIMIT).toBe(100);
    expect(policy.DEFAULT_TOKEN_LIMIT).toBe(vocabulary.DEFAULT_TOKEN_LIMIT);
    expect(NewToken.parse({ customer_id: 'c', api_group: 'identification', name: 'crm' }).rate_limit).toBe(vocabulary.DEFAULT_TOKEN_LIMIT);
    expect(DEFAULT_RATE_LIMIT).toBe(vocabulary.DEFAULT_TOKEN_LIMIT);
  });
});
