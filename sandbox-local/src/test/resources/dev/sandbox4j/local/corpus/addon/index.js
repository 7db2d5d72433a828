module.exports = require("./addon.node");
