import { Type, type SchemaOptions, type TProperties, type TSchema } from '@sinclair/typebox';

/**
 * The account JSON schema: Prebid Server's account shape (`config/account.go`) plus Gavel's few additions
 * (`price_granularity`, `targeting`, `bidadjustmentfactors`, `bid_validations`). Every section Prebid Server reads
 * is typed, so a stored account with a wrong type (`"disabled": "yes"`) is malformed and refused by name, while
 * one written for Prebid Server loads unchanged.
 *
 * Built twice from one description: `closed` for the host's `accounts.defaults` in the config (an unknown key is a
 * boot error, as everywhere in the config), open for stored accounts (keys Prebid Server or another host tool keeps
 * there are allowed and left alone, as Prebid Server's own decoder ignores them).
 */
export interface AccountSchemaOptions {
  closed: boolean;
  /** The schema of a hook execution plan (the config's, Prebid Server's shape). */
  executionPlan: TSchema;
}

export function accountSchema({ closed, executionPlan }: AccountSchemaOptions) {
  const open = { additionalProperties: !closed } as const;
  const Obj = <T extends TProperties>(properties: T, options: SchemaOptions = {}) => Type.Object(properties, { ...open, ...options });
  const opt = Type.Optional;
  const bool = () => opt(Type.Boolean());
  const count = (options: SchemaOptions = {}) => opt(Type.Integer({ minimum: 0, ...options }));
  const strings = () => opt(Type.Array(Type.String()));
  const mode = () => opt(Type.Unsafe<'skip' | 'enforce' | 'warn'>({ type: 'string', enum: ['skip', 'enforce', 'warn'] }));
  const channels = () => opt(Obj({ amp: bool(), app: bool(), video: bool(), web: bool(), dooh: bool() }));
  const purpose = () =>
    opt(Obj({ enforce_algo: opt(Type.Unsafe<'basic' | 'full'>({ type: 'string', enum: ['basic', 'full'] })), enforce_purpose: bool(), enforce_vendors: bool(), vendor_exceptions: strings() }));
  const validations = () => opt(Obj({ banner_creative_max_size: mode(), secure_markup: mode(), max_creative_width: count(), max_creative_height: count() }));
  const granularity = Type.Union([
    Type.String({ minLength: 1 }),
    Type.Object(
      {
        precision: opt(Type.Integer({ minimum: 0 })),
        ranges: Type.Array(Type.Object({ min: opt(Type.Number({ minimum: 0 })), max: Type.Number({ exclusiveMinimum: 0 }), increment: Type.Number({ exclusiveMinimum: 0 }) }, open), { minItems: 1 }),
      },
      open,
    ),
  ]);
  const activity = Type.Object({ default: bool(), rules: opt(Type.Array(Type.Object({ allow: bool(), condition: opt(Type.Object({}, { additionalProperties: true })) }, open))) }, open);

  return Obj({
    id: opt(Type.String()),
    disabled: bool(),
    cache_ttl: opt(Obj({ banner: count(), video: count(), native: count(), audio: count() })),
    ccpa: opt(Obj({ enabled: bool(), channel_enabled: channels() })),
    gdpr: opt(
      Obj({
        enabled: bool(),
        channel_enabled: channels(),
        basic_enforcement_vendors: strings(),
        ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`purpose${i + 1}`, purpose()])),
        purpose_one_treatment: opt(Obj({ enabled: bool(), access_allowed: bool() })),
        special_feature1: opt(Obj({ enforce: bool(), vendor_exceptions: strings() })),
        eea_countries: strings(),
      }),
    ),
    debug_allow: bool(),
    debug_allow_cross_origin: bool(),
    default_integration: opt(Type.String()),
    cookie_sync: opt(
      Obj({
        default_limit: count(),
        max_limit: count(),
        default_coop_sync: bool(),
        priority_groups: opt(Type.Array(Type.Array(Type.String()))),
        priority_groups_only: bool(),
        disabled_iframe_bidders: strings(),
      }),
    ),
    events: opt(Obj({ enabled: bool() })),
    analytics: opt(Type.Object({ modules: opt(Type.Record(Type.String(), Type.Object({ enabled: bool() }, { additionalProperties: true }))) }, { additionalProperties: true })),
    truncate_target_attr: opt(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    alternatebiddercodes: opt(
      Obj({ enabled: bool(), bidders: opt(Type.Record(Type.String(), Type.Object({ enabled: bool(), allowedbiddercodes: strings() }, open))) }),
    ),
    hooks: opt(Obj({ modules: opt(Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()))), execution_plan: opt(executionPlan) })),
    price_floors: opt(
      Obj({
        enabled: bool(),
        enforce_floors_rate: count({ maximum: 100 }),
        adjust_for_bid_adjustment: bool(),
        enforce_deal_floors: bool(),
        use_dynamic_data: bool(),
        max_rules: count(),
        max_schema_dims: count({ maximum: 20 }),
        fetch: opt(
          Obj({
            enabled: bool(),
            url: opt(Type.String()),
            timeout_ms: count(),
            max_file_size_kb: count(),
            max_rules: count(),
            max_age_sec: count(),
            period_sec: count(),
            max_schema_dims: count(),
            accountID: opt(Type.String()),
          }),
        ),
      }),
    ),
    validations: validations(),
    bid_validations: validations(),
    default_bid_limit: count(),
    bidadjustments: opt(Type.Object({}, { additionalProperties: true })),
    bid_rounding: opt(Type.Unsafe<'down' | 'true' | 'timesplit' | 'up'>({ type: 'string', enum: ['down', 'true', 'timesplit', 'up'] })),
    privacy: opt(
      Obj({
        allowactivities: opt(Type.Record(Type.String(), activity)),
        dsa: opt(Obj({ default: opt(Type.String()), gdpr_only: bool() })),
        ipv6: opt(Obj({ anon_keep_bits: opt(Type.Integer()) })),
        ipv4: opt(Obj({ anon_keep_bits: opt(Type.Integer()) })),
        // Prebid Server's privacy sandbox: the domain the Topics header's topics are named after in `user.data`, and
        // whether `Sec-Cookie-Deprecation` fills `device.ext.cdep` (ttl_sec: how long cookie sync's
        // `receive-cookie-deprecation` cookie asks for it).
        privacysandbox: opt(Obj({ topicsdomain: opt(Type.String()), cookiedeprecation: opt(Obj({ enabled: bool(), ttl_sec: opt(Type.Integer()) })) })),
      }),
    ),
    preferredmediatype: opt(Type.Record(Type.String(), Type.Unsafe<string>({ type: 'string', enum: ['banner', 'video', 'audio', 'native'] }))),
    targeting_prefix: opt(Type.String()),
    price_granularity: opt(granularity),
    targeting: opt(Type.Object({}, { additionalProperties: true })),
    bidadjustmentfactors: opt(Type.Record(Type.String(), Type.Number({ exclusiveMinimum: 0 }))),
  });
}
