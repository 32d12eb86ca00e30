import DocUtilCLI

DocUtil.run()
