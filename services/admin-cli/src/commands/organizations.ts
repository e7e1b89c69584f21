import { AppError } from '@propdesk/kit';
import { authv1 } from '@propdesk/proto';
import { nonNegativeInteger, organizationId, requiredString } from '../flags';
import type { Command } from './command';

export interface OrganizationOutput {
  id: string;
  name: string;
  plan_status: 'paid' | 'unpaid';
  credits: number;
}

export function presentOrganization(org: authv1.Organization | undefined): OrganizationOutput {
  if (!org) throw new AppError('internal_error', 'the auth service returned no organization');
  return {
    id: org.id,
    name: org.name,
    plan_status: org.planStatus === authv1.PlanStatus.PLAN_STATUS_PAID ? 'paid' : 'unpaid',
    credits: Number(org.credits),
  };
}

export const orgCreate: Command = {
  flags: { name: { type: 'string' }, unpaid: { type: 'boolean' }, credits: { type: 'string' } },
  async run(values, clients) {
    const name = requiredString(values, 'name');
    const credits = typeof values.credits === 'string' ? nonNegativeInteger(values.credits, 'credits') : '0';
    const planStatus = values.unpaid ? authv1.PlanStatus.PLAN_STATUS_UNPAID : authv1.PlanStatus.PLAN_STATUS_PAID;
    const res = await clients.auth().createOrganization({ name, planStatus, credits });
    return presentOrganization(res.organization);
  },
};

export const orgSetPlan: Command = {
  flags: { org: { type: 'string' }, paid: { type: 'boolean' }, unpaid: { type: 'boolean' } },
  async run(values, clients) {
    const id = organizationId(values);
    if (Boolean(values.paid) === Boolean(values.unpaid)) {
      throw new AppError('invalid_request', 'exactly one of --paid or --unpaid is required', values.paid ? 'unpaid' : 'paid');
    }
    const planStatus = values.paid ? authv1.PlanStatus.PLAN_STATUS_PAID : authv1.PlanStatus.PLAN_STATUS_UNPAID;
    const res = await clients.auth().setOrganizationPlan({ organizationId: id, planStatus });
    return presentOrganization(res.organization);
  },
};

export const orgAddCredits: Command = {
  flags: { org: { type: 'string' }, credits: { type: 'string' } },
  async run(values, clients) {
    const id = organizationId(values);
    const credits = nonNegativeInteger(requiredString(values, 'credits'), 'credits');
    const res = await clients.auth().addCredits({ organizationId: id, credits });
    return presentOrganization(res.organization);
  },
};

export const orgGet: Command = {
  flags: { org: { type: 'string' } },
  async run(values, clients) {
    const res = await clients.auth().getOrganization({ organizationId: organizationId(values) });
    return presentOrganization(res.organization);
  },
};

/** Not in SPEC section 3's list: sets the threshold below which provisioning emits credits.low. */
export const orgSetCreditsThreshold: Command = {
  flags: { org: { type: 'string' }, threshold: { type: 'string' } },
  async run(values, clients) {
    const id = organizationId(values);
    const threshold = nonNegativeInteger(requiredString(values, 'threshold'), 'threshold');
    const res = await clients.auth().setCreditsLowThreshold({ organizationId: id, threshold });
    return { ...presentOrganization(res.organization), credits_low_threshold: Number(res.organization?.creditsLowThreshold ?? 0) };
  },
};
