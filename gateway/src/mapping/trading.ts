import { restDealSchema, restEquityPointSchema, restFlagSchema, restPositionSchema } from '@propdesk/kit';
import { z } from '../http/zod';
import { pageSchema } from './common';

/** The shapes and mappers are the kit's (one definition for the gateway and the panel); named here for the document. */
export {
  ORDER_TYPE_NAMES,
  ORDER_TYPES,
  POSITION_STATUS_NAMES,
  POSITION_STATUSES,
  positionStatusFilter,
  SIDE_NAMES,
  SIDES,
  toRestDeal,
  toRestEquityPoint,
  toRestFlag,
  toRestPosition,
  type OrderTypeName,
  type PositionStatusName,
  type RestDeal,
  type RestEquityPoint,
  type RestFlag,
  type RestPosition,
  type SideName,
} from '@propdesk/kit';

export const positionSchema = restPositionSchema.openapi('Position');
export const dealSchema = restDealSchema.openapi('Deal');
export const flagSchema = restFlagSchema.openapi('Flag');
export const equityPointSchema = restEquityPointSchema;

export const positionPageSchema = pageSchema(positionSchema).openapi('PositionPage');
export const dealPageSchema = pageSchema(dealSchema).openapi('DealPage');
export const flagPageSchema = pageSchema(flagSchema).openapi('FlagPage');
export const equityCurveSchema = z.object({ data: z.array(equityPointSchema) }).strict().openapi('EquityCurve');
