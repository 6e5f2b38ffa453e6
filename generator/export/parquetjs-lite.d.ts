// The part of parquetjs-lite's API the Parquet sink uses; the package ships no types.
declare module 'parquetjs-lite' {
  export interface FieldDefinition {
    readonly type: string;
    readonly optional?: boolean;
    readonly compression?: string;
    /** A list of values. */
    readonly repeated?: boolean;
  }
  /** A group of fields: a struct, or with `repeated` a list of structs. */
  export interface GroupDefinition {
    readonly repeated?: boolean;
    readonly fields: Readonly<Record<string, FieldDefinition>>;
  }
  export class ParquetSchema {
    constructor(fields: Readonly<Record<string, FieldDefinition | GroupDefinition>>);
  }
  export class ParquetWriter {
    static openFile(schema: ParquetSchema, path: string, options?: { rowGroupSize?: number }): Promise<ParquetWriter>;
    appendRow(row: Readonly<Record<string, unknown>>): Promise<void>;
    close(): Promise<void>;
  }
  const parquet: { ParquetSchema: typeof ParquetSchema; ParquetWriter: typeof ParquetWriter };
  export default parquet;
}
