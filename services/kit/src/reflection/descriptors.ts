/**
 * Repairs the file descriptors that @grpc/proto-loader derives from .proto files (through
 * protobufjs), so that strict reflection clients (buf curl, grpcurl, Go's protodesc) accept them.
 *
 * protobufjs rebuilds descriptors from its own object model and loses on the way (upstream:
 * grpc/grpc-node#2595, #2958, #3034):
 * - `dependency` is never filled, so a file that uses google.protobuf.Timestamp "cannot resolve" it;
 * - type names are relative ("AccountStatus"), where descriptors must be absolute (".pkg.AccountStatus");
 * - a map field's entry type is named after the field ("Statuses") instead of "StatusesEntry";
 * - a proto3 `optional` field loses its proto3_optional flag, so its synthetic oneof looks real;
 * - `packed` is set on repeated fields that cannot be packed (strings, messages).
 * Files stay merged per package (one "propdesk_auth_v1.proto"), which reflection allows.
 */

const TYPE_GROUP = 10;
const TYPE_MESSAGE = 11;
const TYPE_BYTES = 12;
const TYPE_STRING = 9;
const TYPE_ENUM = 14;
const LABEL_REPEATED = 3;

export interface FieldDescriptor {
  name?: string;
  label?: number;
  type?: number;
  typeName?: string;
  extendee?: string;
  oneofIndex?: number;
  proto3Optional?: boolean;
  options?: { packed?: boolean; [option: string]: unknown };
}

export interface MessageDescriptor {
  name?: string;
  field?: FieldDescriptor[];
  extension?: FieldDescriptor[];
  nestedType?: MessageDescriptor[];
  enumType?: Array<{ name?: string }>;
  oneofDecl?: Array<{ name?: string }>;
  options?: { mapEntry?: boolean };
}

export interface ServiceDescriptor {
  name?: string;
  method?: Array<{ name?: string; inputType?: string; outputType?: string }>;
}

export interface FileDescriptor {
  name?: string;
  package?: string;
  dependency?: string[];
  messageType?: MessageDescriptor[];
  enumType?: Array<{ name?: string }>;
  service?: ServiceDescriptor[];
  extension?: FieldDescriptor[];
  syntax?: string;
}

/** protoc's entry name for a map field: `statuses` -> `StatusesEntry`, `by_symbol` -> `BySymbolEntry`. */
export function mapEntryName(fieldName: string): string {
  let out = '';
  let upperNext = true;
  for (const c of fieldName) {
    if (c === '_') upperNext = true;
    else {
      out += upperNext ? c.toUpperCase() : c;
      upperNext = false;
    }
  }
  return `${out}Entry`;
}

function renameMapEntries(message: MessageDescriptor): void {
  for (const field of message.field ?? []) {
    if (field.label !== LABEL_REPEATED || field.type !== TYPE_MESSAGE || !field.typeName) continue;
    const entry = message.nestedType?.find((nested) => nested.name === field.typeName && nested.options?.mapEntry);
    if (!entry || !field.name) continue;
    entry.name = mapEntryName(field.name);
    field.typeName = entry.name;
  }
  for (const nested of message.nestedType ?? []) renameMapEntries(nested);
}

/** Marks proto3 `optional` fields and moves their synthetic oneofs after the real ones, as protoc does. */
function restoreProto3Optional(message: MessageDescriptor): void {
  const oneofs = message.oneofDecl ?? [];
  const fields = message.field ?? [];
  const synthetic = new Set<number>();
  oneofs.forEach((oneof, index) => {
    const members = fields.filter((f) => f.oneofIndex === index);
    if (members.length === 1 && oneof.name === `_${members[0].name}`) synthetic.add(index);
  });
  if (synthetic.size > 0) {
    const order = [...oneofs.keys()].sort((a, b) => Number(synthetic.has(a)) - Number(synthetic.has(b)));
    const newIndex = new Map(order.map((old, position) => [old, position]));
    message.oneofDecl = order.map((old) => oneofs[old]);
    for (const field of fields) {
      if (field.oneofIndex === undefined) continue;
      if (synthetic.has(field.oneofIndex)) field.proto3Optional = true;
      field.oneofIndex = newIndex.get(field.oneofIndex);
    }
  }
  for (const nested of message.nestedType ?? []) restoreProto3Optional(nested);
}

function dropUnpackablePacked(message: MessageDescriptor): void {
  for (const field of message.field ?? []) {
    const packable = field.type !== TYPE_STRING && field.type !== TYPE_BYTES && field.type !== TYPE_MESSAGE && field.type !== TYPE_GROUP;
    if (field.options && (!packable || field.label !== LABEL_REPEATED)) delete field.options.packed;
    if (field.options && Object.keys(field.options).length === 0) delete field.options;
  }
  for (const nested of message.nestedType ?? []) dropUnpackablePacked(nested);
}

/** Every fully qualified name (without the leading dot) and the file that declares it; packages too. */
function indexSymbols(files: FileDescriptor[]): { files: Map<string, FileDescriptor>; scopes: Set<string> } {
  const declaredIn = new Map<string, FileDescriptor>();
  const scopes = new Set<string>();
  const addScope = (name: string) => {
    const parts = name.split('.');
    for (let i = 1; i <= parts.length; i += 1) scopes.add(parts.slice(0, i).join('.'));
  };
  const visit = (file: FileDescriptor, prefix: string, message: MessageDescriptor) => {
    const name = `${prefix}${message.name}`;
    declaredIn.set(name, file);
    addScope(name);
    for (const e of message.enumType ?? []) declaredIn.set(`${name}.${e.name}`, file);
    for (const nested of message.nestedType ?? []) visit(file, `${name}.`, nested);
  };
  for (const file of files) {
    const prefix = file.package ? `${file.package}.` : '';
    if (file.package) addScope(file.package);
    for (const message of file.messageType ?? []) visit(file, prefix, message);
    for (const e of file.enumType ?? []) declaredIn.set(`${prefix}${e.name}`, file);
    for (const s of file.service ?? []) declaredIn.set(`${prefix}${s.name}`, file);
  }
  return { files: declaredIn, scopes };
}

/**
 * Resolves a type reference the way protoc does: the first component is looked up from the
 * innermost scope outwards, and the rest must exist under the scope where it was found.
 */
function resolve(reference: string, scope: string, symbols: ReturnType<typeof indexSymbols>): string {
  if (reference.startsWith('.')) return reference.slice(1);
  const [first] = reference.split('.');
  const parts = scope ? scope.split('.') : [];
  for (let i = parts.length; i >= 0; i -= 1) {
    const base = parts.slice(0, i).join('.');
    const head = base ? `${base}.${first}` : first;
    if (symbols.files.has(head) || symbols.scopes.has(head)) return base ? `${base}.${reference}` : reference;
  }
  throw new Error(`cannot resolve type ${reference} from ${scope || 'the root scope'}`);
}

/** Returns repaired copies of a complete set of files (every referenced type is declared in one of them). */
export function repairDescriptors(input: FileDescriptor[]): FileDescriptor[] {
  const files: FileDescriptor[] = structuredClone(input);
  for (const file of files) {
    for (const message of file.messageType ?? []) {
      renameMapEntries(message);
      restoreProto3Optional(message);
      dropUnpackablePacked(message);
    }
  }
  const symbols = indexSymbols(files);
  for (const file of files) {
    const needs = new Set<FileDescriptor>();
    const qualify = (reference: string, scope: string): string => {
      const name = resolve(reference, scope, symbols);
      const owner = symbols.files.get(name);
      if (!owner) throw new Error(`type ${name} is declared in none of the loaded files`);
      if (owner !== file) needs.add(owner);
      return `.${name}`;
    };
    const pkg = file.package ?? '';
    const visitFields = (fields: FieldDescriptor[] | undefined, scope: string) => {
      for (const field of fields ?? []) {
        if (field.typeName && (field.type === TYPE_MESSAGE || field.type === TYPE_ENUM || field.type === TYPE_GROUP)) {
          field.typeName = qualify(field.typeName, scope);
        }
        if (field.extendee) field.extendee = qualify(field.extendee, scope);
      }
    };
    const visitMessage = (message: MessageDescriptor, parent: string) => {
      const scope = parent ? `${parent}.${message.name}` : `${message.name}`;
      visitFields(message.field, scope);
      visitFields(message.extension, scope);
      for (const nested of message.nestedType ?? []) visitMessage(nested, scope);
    };
    for (const message of file.messageType ?? []) visitMessage(message, pkg);
    visitFields(file.extension, pkg);
    for (const service of file.service ?? []) {
      for (const method of service.method ?? []) {
        if (method.inputType) method.inputType = qualify(method.inputType, pkg);
        if (method.outputType) method.outputType = qualify(method.outputType, pkg);
      }
    }
    file.dependency = [...needs].map((dep) => dep.name ?? '').sort();
  }
  return files;
}
