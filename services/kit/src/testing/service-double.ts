import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { adaptHandlers, type AsyncServiceImplementation } from '../grpc-server';
import type { Logger } from '../logger';

/** A stand-in for another service in a test: it implements some RPCs, the others answer UNIMPLEMENTED. */
export function implementServiceDouble<S extends UntypedServiceImplementation>(
  definition: ServiceDefinition,
  logger: Logger,
  handlers: Partial<AsyncServiceImplementation<S>>,
): S {
  return adaptHandlers<S>(definition, logger, handlers);
}
