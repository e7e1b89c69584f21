import type { Clients } from '../clients';
import type { FlagSpec, FlagValues } from '../flags';

export interface Command {
  flags: FlagSpec;
  run(values: FlagValues, clients: Clients): Promise<object>;
}
