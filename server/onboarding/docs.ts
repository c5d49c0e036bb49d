/** The OpenAPI operation of the onboarding checklist (routes.ts), over the shared kit. */
import { admin, adminErrors, idParam, json, schema } from '../openapi/kit.ts';
import { OnboardingStatus } from './steps.ts';

export const onboardingDocs = {
  get: admin(
    'getOnboarding',
    'The onboarding checklist of a customer: snippet installed (a tag seen on a site), first identified visit, first segment, first webhook — only the steps the caller’s role can do (segment: segments:write, webhook: webhooks:write; a marketer has no webhook step); each step with a console link to where it is done. Ahead of them, for roles with integrations:write (owner, admin), one step per CRM connection that needs attention (`hubspot_attention`, `salesforce_attention`: “HubSpot needs attention: <the provider’s message> — reconnect in Integrations”), never done until the connection is fixed. The console lands a customer’s users on it until it is complete',
    {
      parameters: [idParam('customer')],
      responses: {
        200: {
          description: 'The steps of the caller’s role in order, and whether all of them are done',
          content: json(schema(OnboardingStatus), {
            customer_id: 'acme',
            steps: [
              { id: 'install', label: 'Paste the snippet into every page of your site', done: true, href: '/console/#customer=acme&page=tags' },
              { id: 'identified_visit', label: 'See your first identified visit', done: true, href: '/console/#customer=acme&page=visitors' },
              { id: 'segment', label: 'Create your first segment', done: false, href: '/console/#customer=acme&page=segments' },
              { id: 'webhook', label: 'Add a webhook for visits and hot-account alerts', done: false, href: '/console/#customer=acme&page=webhooks' },
            ],
            complete: false,
          }),
        },
        ...adminErrors('read'),
      },
    },
  ),
};
