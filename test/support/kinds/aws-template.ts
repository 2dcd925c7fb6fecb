process.env.TEMPMAIL_TEST_KIND = 'aws-template';
