/**
 * A hybrid-shaped Agent Card with what makes A2A 0.3 canonicalisation differ from RFC 8785 (characters
 * outside ASCII, an astral one and DEL, numbers of both Python kinds, key order by code point, empty
 * values, `false`, defaults, every scheme type, 1.0 members to drop), and what a2a-python 0.3 makes
 * of it: `canonicalize_agent_card(AgentCard.model_validate(card))`, run on the real a2a-python
 * (v0.3.26, and v0.3.21 for the older `_clean_empty`) with pydantic 2.13, over this card as
 * `JSON.stringify` writes it. Test-only.
 */
export const V03_CANONICAL_CARD: Record<string, unknown> = {
  protocolVersion: "0.3.0",
  name: "Tricky \u2713 agent",
  description: "\u00dcn\u00efcode, an astral \ud834\udd1e, a DEL \u007f, a tab \t and a quote \" and a slash /",
  url: "https://agent.example.com/a2a/rest",
  preferredTransport: "HTTP+JSON",
  additionalInterfaces: [
    {
      url: "https://agent.example.com/a2a/rest",
      transport: "HTTP+JSON"
    },
    {
      url: "https://agent.example.com/a2a/jsonrpc",
      transport: "JSONRPC"
    }
  ],
  supportedInterfaces: [
    {
      url: "https://agent.example.com/a2a/rest",
      protocolBinding: "HTTP+JSON",
      protocolVersion: "1.0"
    }
  ],
  provider: {
    organization: "Example",
    url: "https://example.com"
  },
  version: "2.0.0",
  documentationUrl: "",
  capabilities: {
    streaming: false,
    pushNotifications: true,
    extendedAgentCard: true,
    extensions: [
      {
        uri: "urn:x",
        required: false,
        description: "",
        params: {
          int: 3,
          neg: -7,
          half: 1.5,
          tiny: 1e-7,
          small: 0.0001,
          big: 10000000000000000,
          huge: 1e+21,
          zero: 0,
          no: false,
          none: null,
          empty: {},
          list: [],
          "\ud834\udd1e": 1,
          "\ue000": 2,
          "\u00e9": 3,
          Z: 4
        }
      }
    ]
  },
  securitySchemes: {
    apiKey: {
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
      apiKeySecurityScheme: {
        location: "header",
        name: "X-API-Key"
      }
    },
    bearer: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT"
    },
    oauth: {
      type: "oauth2",
      description: "OAuth",
      flows: {
        clientCredentials: {
          tokenUrl: "https://auth.example.com/token",
          scopes: {}
        },
        authorizationCode: {
          authorizationUrl: "https://auth.example.com/a",
          tokenUrl: "https://auth.example.com/t",
          scopes: {
            read: "Read",
            write: ""
          }
        }
      }
    },
    oidc: {
      type: "openIdConnect",
      openIdConnectUrl: "https://auth.example.com/.well-known/openid-configuration"
    },
    mtls: {
      type: "mutualTLS"
    }
  },
  security: [
    {
      apiKey: []
    },
    {
      oauth: [
        "read"
      ],
      mtls: []
    }
  ],
  securityRequirements: [
    {
      schemes: {
        apiKey: {
          list: []
        }
      }
    }
  ],
  defaultInputModes: [
    "text/plain"
  ],
  defaultOutputModes: [
    "text/plain",
    ""
  ],
  skills: [
    {
      id: "s1",
      name: "One",
      description: "First",
      tags: [
        "a",
        ""
      ],
      examples: [],
      security: [
        {
          bearer: []
        }
      ],
      securityRequirements: []
    },
    {
      id: "s2",
      name: "Two",
      description: "Second",
      tags: [
        "b"
      ],
      inputModes: [
        "application/json"
      ]
    }
  ],
  supportsAuthenticatedExtendedCard: false,
  signatures: [
    {
      protected: "e30",
      signature: "AA"
    }
  ]
};

/** a2a-python v0.3.26 (and 0.3.24 on) */
export const V03_CANONICAL_PAYLOAD =
  "{\"additionalInterfaces\":[{\"transport\":\"HTTP+JSON\",\"url\":\"https://agent.example.com/a2a/rest\"},{\"transport\":\"JSONRPC\",\"url\":\"https://agent.example.com/a2a/jsonrpc\"}],\"capabilities\":{\"extensions\":[{\"params\":{\"Z\":4,\"big\":10000000000000000,\"half\":1.5,\"huge\":1e+21,\"int\":3,\"neg\":-7,\"no\":false,\"small\":0.0001,\"tiny\":1e-07,\"zero\":0,\"\\u00e9\":3,\"\\ue000\":2,\"\\ud834\\udd1e\":1},\"required\":false,\"uri\":\"urn:x\"}],\"pushNotifications\":true,\"streaming\":false},\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"description\":\"\\u00dcn\\u00efcode, an astral \\ud834\\udd1e, a DEL \\u007f, a tab \\t and a quote \\\" and a slash /\",\"name\":\"Tricky \\u2713 agent\",\"preferredTransport\":\"HTTP+JSON\",\"provider\":{\"organization\":\"Example\",\"url\":\"https://example.com\"},\"security\":[{\"oauth\":[\"read\"]}],\"securitySchemes\":{\"apiKey\":{\"in\":\"header\",\"name\":\"X-API-Key\"},\"bearer\":{\"bearerFormat\":\"JWT\",\"scheme\":\"bearer\"},\"oauth\":{\"description\":\"OAuth\",\"flows\":{\"authorizationCode\":{\"authorizationUrl\":\"https://auth.example.com/a\",\"scopes\":{\"read\":\"Read\"},\"tokenUrl\":\"https://auth.example.com/t\"},\"clientCredentials\":{\"tokenUrl\":\"https://auth.example.com/token\"}}},\"oidc\":{\"openIdConnectUrl\":\"https://auth.example.com/.well-known/openid-configuration\"}},\"skills\":[{\"description\":\"First\",\"id\":\"s1\",\"name\":\"One\",\"tags\":[\"a\"]},{\"description\":\"Second\",\"id\":\"s2\",\"inputModes\":[\"application/json\"],\"name\":\"Two\",\"tags\":[\"b\"]}],\"supportsAuthenticatedExtendedCard\":false,\"url\":\"https://agent.example.com/a2a/rest\",\"version\":\"2.0.0\"}";

/** a2a-python v0.3.21 to v0.3.23: `false` and `0` dropped too */
export const V03_CANONICAL_PAYLOAD_0321 =
  "{\"additionalInterfaces\":[{\"transport\":\"HTTP+JSON\",\"url\":\"https://agent.example.com/a2a/rest\"},{\"transport\":\"JSONRPC\",\"url\":\"https://agent.example.com/a2a/jsonrpc\"}],\"capabilities\":{\"extensions\":[{\"params\":{\"Z\":4,\"big\":10000000000000000,\"half\":1.5,\"huge\":1e+21,\"int\":3,\"neg\":-7,\"small\":0.0001,\"tiny\":1e-07,\"\\u00e9\":3,\"\\ue000\":2,\"\\ud834\\udd1e\":1},\"uri\":\"urn:x\"}],\"pushNotifications\":true},\"defaultInputModes\":[\"text/plain\"],\"defaultOutputModes\":[\"text/plain\"],\"description\":\"\\u00dcn\\u00efcode, an astral \\ud834\\udd1e, a DEL \\u007f, a tab \\t and a quote \\\" and a slash /\",\"name\":\"Tricky \\u2713 agent\",\"preferredTransport\":\"HTTP+JSON\",\"provider\":{\"organization\":\"Example\",\"url\":\"https://example.com\"},\"security\":[{\"oauth\":[\"read\"]}],\"securitySchemes\":{\"apiKey\":{\"in\":\"header\",\"name\":\"X-API-Key\"},\"bearer\":{\"bearerFormat\":\"JWT\",\"scheme\":\"bearer\"},\"oauth\":{\"description\":\"OAuth\",\"flows\":{\"authorizationCode\":{\"authorizationUrl\":\"https://auth.example.com/a\",\"scopes\":{\"read\":\"Read\"},\"tokenUrl\":\"https://auth.example.com/t\"},\"clientCredentials\":{\"tokenUrl\":\"https://auth.example.com/token\"}}},\"oidc\":{\"openIdConnectUrl\":\"https://auth.example.com/.well-known/openid-configuration\"}},\"skills\":[{\"description\":\"First\",\"id\":\"s1\",\"name\":\"One\",\"tags\":[\"a\"]},{\"description\":\"Second\",\"id\":\"s2\",\"inputModes\":[\"application/json\"],\"name\":\"Two\",\"tags\":[\"b\"]}],\"url\":\"https://agent.example.com/a2a/rest\",\"version\":\"2.0.0\"}";
